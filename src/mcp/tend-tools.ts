import * as api from '../api/index.js';
import { tendText } from '../text/tend.js';
import { bool, schema } from '../operations/operation.js';
import { tool, type ToolSpec } from './tool.js';

// The tend fixes an agent can run itself once tend_check reported something: each a dry run that
// says what it would change, until called with write.

const write = bool('change the files; without it (the default) a dry run that only reports what would change');

function tendFix(name: string, action: 'repair' | 'robustify', description: string): ToolSpec {
  return tool({
    name,
    description,
    inputSchema: schema({ write }),
    async run(root, a) {
      const r = await api.tend(root, action, { write: a.write });
      const { strict, ...json } = r;
      return { json, text: tendText(r) };
    },
  });
}

export const tendTools: ToolSpec[] = [
  tendFix(
    'tend_repair',
    'repair',
    'Fix what tend_check reports as stale: links to a renamed note are pointed at where its uuid lives now, links to an archived note at its successor, and supersession chains are mended (a note superseded by an archived note is re-linked to the live note after it, or becomes the current belief again when there is none). A dry run unless write is true: call it first to see what would change, then again with write: true.',
  ),
  tendFix(
    'tend_robustify',
    'robustify',
    'Anchor plain links between notes: each link to a note with a uuid gets a hidden <!-- uuid: ... --> after it, so it can be found again when the note is renamed (tend_check counts such links as unanchored). A dry run unless write is true.',
  ),
];
