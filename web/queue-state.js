// @ts-check
// What the queue and settings pages both show of a queue's state: the state controls, the Terraform
// banner and the freeze banner.
import { Since } from './components.js';
import { time } from './dom.js';
import { html } from './ui.js';

/** @typedef {import('../src/client/index.js').QueueActivity} QueueActivity */

/**
 * What a change made from the dashboard means on a queue Terraform manages, to add to a confirmation.
 * @param {QueueActivity} a
 */
export const outsideTerraform = (a) =>
  a.managedBy === 'terraform' ? ' Terraform manages this queue: this counts as a change outside Terraform.' : '';

/**
 * The queue's state controls: each sets `state` through updateQueue after a confirmation that says what
 * the state means, in the engine's words (src/engine/queue-states.ts; test/web/queue-state.test.ts).
 */
export const CONTROLS = [
  {
    state: 'PAUSED',
    label: 'Pause',
    text: 'Pause the queue: no PR is admitted, no test run starts and nothing merges until it is resumed; results of runs in flight are still recorded.',
  },
  { state: 'RUNNING', label: 'Resume', text: 'Resume the queue: ready PRs are admitted, tested and merged.' },
  {
    state: 'DRAINING',
    label: 'Drain',
    text: 'Drain the queue: the PRs already admitted are tested and merged; new submissions are refused and PRs not yet admitted wait until it is resumed.',
  },
];

/**
 * The banner of a queue whose settings Terraform manages: managed, or changed outside Terraform since
 * a time (a write from anywhere else after Terraform's last one, this page's buttons included).
 * @param {{ activity: QueueActivity }} props
 */
export function ManagementBanner({ activity: a }) {
  if (a.managedBy !== 'terraform') return null;
  if (a.driftSince === null) {
    return html`<p class="banner managed" id="management">
      <strong>Managed by Terraform.</strong> Change its settings in the Terraform configuration; a change made here or
      through the API counts as a change outside Terraform.
    </p>`;
  }
  return html`<p class="banner drift" id="management">
    <strong>Changed outside Terraform since <time datetime=${a.driftSince}>${time(a.driftSince)}</time>.</strong>
    ${' '}The queue is managed by Terraform, but its settings or state were changed from elsewhere
    ${' '}<${Since} iso=${a.driftSince} /> ago. Run terraform plan to see what differs from the configuration.
  </p>`;
}

/**
 * A queue with freezes: frozen (until when and why; nothing merges but urgent and exempt PRs), or the
 * next freeze. Nothing for a queue without freezes.
 * @param {{ activity: QueueActivity }} props
 */
export function FreezeBanner({ activity: a }) {
  if (a.frozen === true && a.frozenUntil) {
    return html`<p class="banner frozen" id="freeze">
      <strong>Frozen until <time datetime=${a.frozenUntil}>${time(a.frozenUntil)}</time>: ${a.frozenReason}.</strong>
      ${' '}Nothing merges until then, except urgent PRs and PRs with an exempt label.
    </p>`;
  }
  const next = a.nextFreeze;
  if (!next) return null;
  return html`<p class="muted" id="freeze">
    Next freeze: <time datetime=${next.from}>${time(next.from)}</time> to
    ${' '}<time datetime=${next.until}>${time(next.until)}</time> (${next.reason}).
  </p>`;
}
