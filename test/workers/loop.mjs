// A separate writer process for concurrency and crash tests.
// usage: node loop.mjs ROOT MODE COUNT TAG   (MODE: merge REF | write SLUG | mixed)
const [root, mode, arg, countText, tag] = process.argv.slice(2);
const ops = (name) => new URL(`../../dist/src/corpus/ops/${name}.js`, import.meta.url).href;
const { inCall } = await import('./in-call.mjs');
await inCall(async () => {
  const { appendFragment } = await import(ops('merge'));
  const { writeNote } = await import(ops('write'));
  const count = Number(countText);
  for (let i = 0; i < count; i++) {
    const fragment = `frag-${tag}-${i} ${'x'.repeat(200)} END-${tag}-${i}`;
    if (mode === 'merge') {
      await appendFragment(root, arg, fragment, { source: `w${tag}` });
    } else if (mode === 'mixed') {
      writeNote(root, { slug: `${arg}-${tag}`, title: `Note ${tag} ${i}`, body: fragment.repeat(20), unique: true });
      await appendFragment(root, arg, fragment, { source: `w${tag}` });
    }
  }
});
