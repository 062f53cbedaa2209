export default async function globalTeardown() {
  await globalThis.__SANDBOX__.stop();
}
