import { describe, expect, it } from 'vitest';
import { withContext } from '../src/context.js';
import { hint, hintBoth, hintNames } from '../src/hints.js';
import { Settings } from '../src/settings.js';

// One catalogue of hints, two renderings: a person at the command line is told commands and
// flags, an agent over MCP tools and arguments, and neither is told the other's.

const io = { stdout: () => {}, stderr: () => {}, stdin: () => undefined, cwd: () => '/' };
const CLI_WORDS = /zk-memory |(^|[\s(`])--[a-z]/;
const MCP_WORDS = /`[a-z_]+ \{|"[a-z-]+": |`(tend_repair|tend_robustify|ingest_[a-z]+)`/;

describe('the hint catalogue', () => {
  it('says every hint both ways, each in its own terms', () => {
    expect(hintNames().length).toBeGreaterThan(15);
    for (const name of hintNames()) {
      const said = (hintBoth as (n: string, ...a: string[]) => { cli: string; mcp: string })(name, 'x y', 'z');
      expect(said.mcp, name).not.toMatch(CLI_WORDS);
      expect(said.cli, name).not.toMatch(MCP_WORDS);
      expect(said.cli, name).not.toBe(said.mcp);
    }
  });

  it('renders for the audience of the call: the command line unless the context says MCP', () => {
    const settings = new Settings({});
    expect(withContext({ settings, io }, () => hint('repairLinks'))).toBe('`zk-memory tend repair --write`');
    expect(withContext({ settings, io, audience: 'mcp' }, () => hint('repairLinks'))).toBe('`tend_repair {"write":true}`');
    expect(withContext({ settings, io, audience: 'mcp' }, () => hint('slugTaken', "dana's"))).toContain('`merge {"ref":"dana\'s","fragment":"…"}`');
    expect(withContext({ settings, io }, () => hint('slugTaken', "dana's"))).toContain("`merge 'dana'\\''s'`");
  });
});
