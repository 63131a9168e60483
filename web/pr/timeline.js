// @ts-check
// The pull request page's timeline: every state change with its reason, newest first.
import { time } from '../dom.js';
import { html } from '../ui.js';
import { StateBadge, Why } from '../words.js';
import { short } from '../links.js';

/** @typedef {import('./words.js').TimelineItem} TimelineItem */

/** @param {{ timeline: TimelineItem[] }} props */
export function Timeline({ timeline }) {
  if (timeline.length === 0) return html`<p class="muted">No state change recorded yet.</p>`;
  return html`
    <ol class="timeline" id="timeline">
      ${timeline.map(
        (t) => html`
          <li key=${`${t.at} ${t.toState} ${t.reason}`}>
            <time datetime=${t.at}>${time(t.at)}</time>
            <div>
              ${t.fromState ? html`<${StateBadge} state=${t.fromState} />` : html`<span class="muted">new</span>`}
              ${' → '}<${StateBadge} state=${t.toState} />
            </div>
            <div>
              <${Why} code=${t.reason} message=${t.message} />
              ${t.testRunId ? html`<span class="muted"> run ${short(t.testRunId)}</span>` : null}
            </div>
            ${t.detail ? html`<p class="detail">${t.detail}</p>` : null}
          </li>
        `,
      )}
    </ol>
  `;
}
