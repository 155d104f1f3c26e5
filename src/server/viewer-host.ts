import type { RunContext } from '../context.js';
import type { ServerState } from './protocol.js';
import type { Viewer } from '../viewer/web.js';

/** The viewer of a server (docs/viewer.md): started by the first `view` request, its pages read in calls of the server's own. */
export class ViewerHost {
  private starting: Promise<Viewer> | undefined;
  private open: Viewer | undefined;

  constructor(
    private readonly root: string,
    private readonly ownCall: () => RunContext,
    private readonly state: () => ServerState,
  ) {}

  /** The viewer's address, once it listens. */
  get url(): string | undefined {
    return this.open?.url;
  }

  /** Whether a page of the viewer is open (following the corpus live): the server is not idle then. */
  watching(): boolean {
    return (this.open?.watching() ?? 0) > 0;
  }

  /** The viewer, started once (again after a start that failed). */
  start(): Promise<Viewer> {
    this.starting ??= import('../viewer/web.js').then(async ({ listenViewer }) => {
      const v = await listenViewer(this.root, this.ownCall(), this.state);
      this.open = v;
      return v;
    });
    this.starting.catch(() => (this.starting = undefined));
    return this.starting;
  }

  /** Close the viewer, if it started. */
  close(): Promise<void> | undefined {
    return this.starting?.then((v) => v.close()).catch(() => undefined);
  }
}
