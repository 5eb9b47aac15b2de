/** A connection URL fit for a log line or an error message: its password replaced by `***`. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):([^@/]+)@/, '//$1:***@');
}
