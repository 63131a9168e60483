// @ts-check
// The pull request page's facts: its queue, links on the forge, author, priority, state and why, and
// where it stands while it is in the queue.
import { Since, time, Until } from '../dom.js';
import { prHref, queueHref, queueLabel } from '../links.js';
import { html } from '../ui.js';
import { ExternalLink, Why } from '../words.js';
import { stackLayers } from './words.js';
import { short } from '../links.js';

/** @typedef {import('../../src/client/index.js').SubmittedPullRequest} SubmittedPullRequest */
/** @typedef {import('../../src/client/index.js').QueueRequest} QueueKey */

/**
 * The PR's facts: queue, links on the forge, author, priority, state and why, where it stands.
 * @param {{ queueKey: QueueKey, pr: SubmittedPullRequest }} props
 */
export function Facts({ queueKey, pr }) {
  return html`
    <dl class="facts card">
      <dt>Queue</dt>
      <dd><a href=${queueHref(queueKey)}>${queueLabel(queueKey)}</a></dd>
      <dt>Author</dt>
      <dd>${pr.prAuthor}</dd>
      <dt>Head</dt>
      <dd>
        <span class="mono" title=${pr.prSha}>${short(pr.prSha)}</span>
        ${pr.headCommitUrl ? ' · ' : null}
        <${ExternalLink} url=${pr.headCommitUrl} label=${`Head commit ${short(pr.prSha)} on the forge (opens in a new tab)`}
          >commit on the forge</${ExternalLink}
        >
      </dd>
      ${
        pr.prUrl
          ? html`<dt>On the forge</dt>
              <dd>
                <${ExternalLink} url=${pr.prUrl} label=${`Pull request #${pr.prNumber} on the forge (opens in a new tab)`}
                  >pull request #${pr.prNumber}</${ExternalLink}
                >
              </dd>`
          : null
      }
      ${
        pr.stack.length > 0
          ? html`<dt>Stack</dt>
              <dd id="pr-stack">
                ${stackLayers(pr).map(
                  (layer, i) =>
                    html`${i > 0 ? ' › ' : null}${
                      layer.self
                        ? html`<strong aria-current="page">#${layer.number}</strong>`
                        : html`<a href=${prHref(queueKey, layer.number)}>#${layer.number}</a>`
                    }`,
                )}
                <span class="muted"> (lands bottom first)</span>
              </dd>`
          : null
      }
      <dt>Priority</dt>
      <dd>${pr.priorityName} (${pr.priorityValue})</dd>
      <dt>In state since</dt>
      <dd>${time(pr.stateChangedAt)} (<${Since} iso=${pr.stateChangedAt} /> ago)</dd>
      <dt>Why</dt>
      <dd id="pr-reason">
        <${Why} ...${pr.reason} />
        ${pr.reason.url ? ' ' : null}
        <${ExternalLink} url=${pr.reason.url} label="The failed check (opens in a new tab)">failed check</${ExternalLink}>
      </dd>
      ${
        pr.waitingOn
          ? html`
              <dt>Position</dt>
              <dd id="pr-position">${pr.position === null ? 'not admitted yet' : String(pr.position)}</dd>
              <dt>Waiting on</dt>
              <dd id="pr-waiting-on"><${Why} ...${pr.waitingOn} /></dd>
              ${pr.laneReason ? html`<dt>Lane</dt><dd id="pr-lane">${pr.laneReason}</dd>` : null}
              <dt>Estimated merge</dt>
              <dd id="pr-eta">
                ${pr.estimatedMergeAt ? html`${time(pr.estimatedMergeAt)} (<${Until} iso=${pr.estimatedMergeAt} />)` : 'unknown'}
                ${
                  pr.estimatedMergeRange && pr.estimatedMergeRange.p10 !== pr.estimatedMergeRange.p90
                    ? html`<span id="pr-eta-range" class="muted">${`, between ${time(pr.estimatedMergeRange.p10)} and ${time(pr.estimatedMergeRange.p90)}`}</span>`
                    : null
                }
              </dd>
            `
          : null
      }
    </dl>
  `;
}
