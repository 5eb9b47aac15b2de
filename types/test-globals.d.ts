// Tests read JSON bodies of our own API and assert on them; typing each body would add nothing.
interface Response {
  json(): Promise<any>;
}
