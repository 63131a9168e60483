// @ts-check
// A pull request page that cannot be shown: a PR never submitted to the queue (and how to submit it),
// or another error.
import { confirmThen } from '../actions.js';
import { ApiError, call } from '../api.js';
import { queueHref, queueLabel } from '../links.js';
import { html, useState } from '../ui.js';
import { ErrorText } from './error-text.js';

/** @typedef {import('../../src/client/index.js').QueueRequest} QueueKey */
/** @typedef {import('../actions.js').Outcome} Outcome */

/**
 * The PR could not be shown: never submitted to this queue (and how to submit it), or another error.
 * @param {{ queueKey: QueueKey, prNumber: number, problem: unknown, reload: () => Promise<void> }} props
 */
export function PrProblem({ queueKey, prNumber, problem, reload }) {
  const [outcome, setOutcome] = useState(/** @type {Outcome | null} */ (null));
  const notSubmitted = problem instanceof ApiError && problem.code === 'PR_NOT_SUBMITTED';
  const repo = `${queueKey.repo.host}/${queueKey.repo.owner}/${queueKey.repo.name}`;
  if (!notSubmitted)
    return html`<article aria-labelledby="pr-title" class="card">
      <h1 id="pr-title">#${prNumber} cannot be shown</h1>
      <${ErrorText} error=${problem} />
      <p><a href=${queueHref(queueKey)}>Back to ${queueLabel(queueKey)}</a> · <a href="#/">All queues</a></p>
    </article>`;
  const submit = async () => {
    const result = await confirmThen(
      {
        title: `Submit #${prNumber} to ${queueLabel(queueKey)}?`,
        text: `#${prNumber} enters the queue and is tested once it is ready.`,
        action: 'Submit',
      },
      () => call('submitPullRequest', { ...queueKey, pr: { number: prNumber } }),
      `#${prNumber} was submitted.`,
    );
    if (!result) return;
    setOutcome(result);
    if (result.ok) await reload();
  };
  return html`<article aria-labelledby="pr-title" class="card" id="pr-not-found">
    <h1 id="pr-title">#${prNumber} is not in this queue</h1>
    <p>Pull request #${prNumber} has never been submitted to <a href=${queueHref(queueKey)}>${queueLabel(queueKey)}</a>.</p>
    <p>
      To queue it, submit it here, with <code>greenline pr submit ${prNumber} --repo ${repo} --branch ${queueKey.targetBranch}</code>,
      or with POST /v1/submitPullRequest. This page shows it as soon as it is submitted.
    </p>
    <div class="controls">
      <button type="button" onClick=${submit}>Submit #${prNumber}</button>
    </div>
    ${outcome ? html`<p class=${outcome.ok ? 'notice' : 'error'} title=${outcome.code}>${outcome.text}</p>` : null}
  </article>`;
}
