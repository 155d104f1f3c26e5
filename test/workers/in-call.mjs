// Library code runs in a call (src/context.ts `current` fails outside one): a worker runs its work
// in a call of its own, with its process's environment and output, as the tests did in-process.
const { processIo, withContext } = await import(new URL('../../dist/src/context.js', import.meta.url).href);
const { Settings } = await import(new URL('../../dist/src/settings.js', import.meta.url).href);

export function inCall(fn) {
  return withContext({ settings: new Settings(process.env), io: processIo }, fn);
}
