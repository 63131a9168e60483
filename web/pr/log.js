// @ts-check
// The built-in CI runner's log of a test run, shown on demand.
import { ApiError, call, failed } from '../api.js';
import { html, useEffect, useState } from '../ui.js';
import { ErrorText } from './error-text.js';
import { short } from '../links.js';

/** @typedef {import('../../src/client/index.js').QueueRequest} QueueKey */

/**
 * The built-in CI runner's output of a run, loaded on demand and again when the run's status changes.
 * @param {{ queueKey: QueueKey, testRunId: string, status: string }} props
 */
export function LogViewer({ queueKey, testRunId, status }) {
  const [open, setOpen] = useState(false);
  const [log, setLog] = useState(/** @type {{ text: string } | { error: unknown } | null} */ (null));
  const { host, owner, name } = queueKey.repo;
  useEffect(() => {
    if (!open) return;
    let gone = false;
    call('getTestRunLog', { repo: { host, owner, name }, targetBranch: queueKey.targetBranch, testRunId }).then(
      (/** @type {string} */ text) => {
        if (!gone) setLog({ text });
      },
      (error) => {
        if (!gone && !failed(error)) setLog({ error });
      },
    );
    return () => {
      gone = true;
    };
  }, [open, status, host, owner, name, queueKey.targetBranch, testRunId]);
  const boxId = `log-${testRunId}`;
  return html`
    <button
      type="button"
      class="quiet"
      aria-expanded=${open ? 'true' : 'false'}
      aria-controls=${boxId}
      onClick=${() => {
        setOpen(!open);
        if (open) setLog(null);
      }}
    >
      ${open ? 'Hide log' : 'Show log'}
    </button>
    <div class="log-box" id=${boxId}>
      ${
        !open
          ? null
          : log === null
            ? html`<p class="muted">Loading the log…</p>`
            : 'text' in log
              ? html`<pre class="log" tabindex="0" aria-label=${`Log of run ${short(testRunId)}`}>${log.text || '(empty log)'}</pre>`
              : log.error instanceof ApiError && log.error.code === 'LOG_NOT_FOUND'
                ? html`<p class="muted" title=${log.error.code}>${log.error.message}.</p>`
                : html`<${ErrorText} error=${log.error} />`
      }
    </div>
  `;
}
