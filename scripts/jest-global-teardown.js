module.exports = async function globalTeardown() {
  for (const c of globalThis.__SOCIAL_CONTAINERS__ ?? []) await c.stop();
};
