/**
 * Network post ids become object keys of a bucket; FerretDB and MongoDB refuse keys with dots or
 * a leading `$`, so those characters (and the escape character) are percent-encoded.
 */
export const postKey = (id: string): string => id.replace(/[%.$]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
