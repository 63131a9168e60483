// @ts-check
// One test run of a pull request: the PRs it tested and merged underneath, its test commit, the required
// statuses, the CI statuses with their links and the built-in runner's log, or why no CI ran.
import { time } from '../dom.js';
import { prHref } from '../links.js';
import { html } from '../ui.js';
import { ExternalLink, StateBadge, Why } from '../words.js';
import { ErrorText } from './error-text.js';
import { LogViewer } from './log.js';
import { short } from '../links.js';
import { whyNoCi } from './words.js';

/** @typedef {import('../../src/client/index.js').TestingDetails} TestingDetails */
/** @typedef {import('../../src/client/index.js').QueueRequest} QueueKey */
/** @typedef {import('./words.js').TimelineItem} TimelineItem */
/** A test run of the PR: its details, or why they could not be read. @typedef {{ id: string, details: TestingDetails } | { id: string, error: unknown }} Run */

/**
 * What a run that never reached CI says instead of statuses and a log: its test commit was not built,
 * and why (the timeline item of the run that ended it, e.g. a merge conflict with the files).
 * @param {{ items: TimelineItem[] }} props
 */
function NoCiRan({ items }) {
  const ended = whyNoCi(items);
  return html`
    <div class="no-ci">
      <p><strong>No CI ran: </strong>the test commit of this run was never built, so there is no log.</p>
      ${ended ? html`<p class="detail"><${Why} code=${ended.reason} message=${ended.message} detail=${ended.detail} /></p>` : null}
    </div>
  `;
}

/**
 * Links to the dashboard pages of PRs; the page's own PR is named, not linked.
 * @param {{ queueKey: QueueKey, numbers: number[], self: number }} props
 */
function PrLinks({ queueKey, numbers, self }) {
  if (numbers.length === 0) return 'none';
  return numbers.map(
    (n, i) =>
      html`${i > 0 ? ', ' : ''}${n === self ? html`<span aria-current="page">#${n}</span>` : html`<a href=${prHref(queueKey, n)}>#${n}</a>`}`,
  );
}

/**
 * One test run: the PRs it tested and merged underneath, its test commit, the required statuses, the
 * CI statuses with their links, and the built-in runner's log.
 * @param {{ queueKey: QueueKey, prNumber: number, run: Run, items: TimelineItem[] }} props
 */
export function RunCard({ queueKey, prNumber, run, items }) {
  const label = `Run ${short(run.id)}`;
  if (!('details' in run))
    return html`<li class="card run-card">
      <h3>${label}</h3>
      <${ErrorText} error=${run.error} />
    </li>`;
  const d = run.details;
  const noCi = d.testBranchSha === null && d.status !== 'in_progress';
  return html`
    <li class="card run-card" data-run=${run.id}>
      <h3>${label} <${StateBadge} state=${d.status} /></h3>
      <dl class="facts">
        <dt>Tested PRs</dt>
        <dd><${PrLinks} queueKey=${queueKey} numbers=${d.testedPullRequests.map((p) => p.prNumber)} self=${prNumber} /></dd>
        <dt>Merged underneath</dt>
        <dd><${PrLinks} queueKey=${queueKey} numbers=${d.dependentPrs} self=${prNumber} /></dd>
        <dt>Test branch</dt>
        <dd class="mono">${d.testBranch}</dd>
        <dt>Test commit</dt>
        <dd>
          <span class="mono" title=${d.testBranchSha ?? 'not built'}>${d.testBranchSha ? short(d.testBranchSha) : 'not built'}</span>
          ${d.testCommitUrl ? ' · ' : null}
          <${ExternalLink} url=${d.testCommitUrl} label=${`Test commit ${short(d.testBranchSha)} on the forge (opens in a new tab)`}
            >commit on the forge</${ExternalLink}
          >
        </dd>
        <dt>Started</dt>
        <dd>${time(d.createdAt)}</dd>
        <dt>Required</dt>
        <dd>${d.requiredStatuses.join(', ') || 'none'}</dd>
      </dl>
      ${
        noCi
          ? html`<${NoCiRan} items=${items} />`
          : html`
              <h4>CI statuses</h4>
              ${
                d.statusChecks.length === 0
                  ? html`<p class="muted">No status reported yet: CI reports one when it starts the test commit.</p>`
                  : html`<ul class="checks">
                      ${d.statusChecks.map(
                        (c) => html`
                          <li key=${c.context}>
                            <${StateBadge} state=${c.state} />
                            ${' '}<code>${c.context}</code>
                            ${c.description ? html`<span class="muted"> ${c.description}</span>` : null}
                            ${c.url ? ' ' : null}
                            <${ExternalLink} url=${c.url} label=${`Details of ${c.context} (opens in a new tab)`}>details</${ExternalLink}>
                          </li>
                        `,
                      )}
                    </ul>`
              }
              <${LogViewer} queueKey=${queueKey} testRunId=${run.id} status=${d.status} />
            `
      }
    </li>
  `;
}
