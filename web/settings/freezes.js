// @ts-check
// The settings page's Freezes section: the queue's freezes as stored, a form that adds a one-off freeze
// from now, and Unfreeze while a one-off freeze is in effect.
import { time } from '../dom.js';
import { FreezeBanner, outsideTerraform } from '../queue-state.js';
import { html, useRef, useState } from '../ui.js';
import { valueWords } from './changes.js';
import {
  inEffect,
  NO_FREEZES,
  oneOffFreeze,
  refusedFreezeField,
  windowText,
  withFreeze,
  withoutFreezes,
} from './freeze-changes.js';
import { OutcomeLine, useFocusKept } from './outcome.js';
import { sentence } from './schema.js';

/** @typedef {import('../../src/client/index.js').QueueSettings} QueueSettings */
/** @typedef {import('../../src/client/index.js').QueueActivity} QueueActivity */
/** @typedef {import('./schema.js').Schemas} Schemas */
/** @typedef {import('./outcome.js').Outcome} Outcome */
/** @typedef {import('./outcome.js').Run} Run */

/**
 * The queue's freezes as stored, a form that adds a one-off freeze from now (the CLI's queue freeze),
 * and Unfreeze while a one-off freeze is in effect (queue unfreeze).
 * @param {{ q: QueueSettings, activity: QueueActivity, schemas: Schemas, title: string, run: Run }} props
 */
export function FreezeSection({ q, activity, schemas, title, run }) {
  const [until, setUntil] = useState('');
  const [reason, setReason] = useState('');
  const [outcome, setOutcome] = useState(/** @type {Outcome | null} */ (null));
  const [error, setError] = useState(/** @type {{ field: string, text: string } | null} */ (null));
  const schema = schemas.input.freezes ?? {};
  const parts = schema.properties ?? {};
  const oneOff = parts.oneOff?.items?.properties ?? {};
  const current = q.freezes ?? NO_FREEZES;
  const ending = inEffect(q.freezes, Date.now());
  const section = useRef(/** @type {HTMLElement | null} */ (null));
  const acted = useFocusKept(section, ending.length);

  const freeze = async (/** @type {Event} */ event) => {
    event.preventDefault();
    setError(null);
    const entry = oneOffFreeze(until, reason, Date.now());
    const ends = Date.parse(until);
    const result = await run(
      {
        title: `Freeze ${title}?`,
        text:
          `Freeze the queue until ${Number.isFinite(ends) ? time(entry.until) : 'the time given'}: it starts no merge, ` +
          `except urgent PRs and PRs with an exempt label; its state stays ${q.state}.${outsideTerraform(activity)}`,
        action: 'Freeze',
      },
      withFreeze(current, entry),
      (after) =>
        after.frozen ? `Frozen until ${time(String(after.frozenUntil))}: ${after.frozenReason}.` : 'Freeze added.',
    );
    if (result && !result.ok) {
      setError({ field: refusedFreezeField(result.text), text: result.text });
      setOutcome(null);
    } else {
      setOutcome(result);
      if (result) {
        setUntil('');
        setReason('');
      }
    }
  };
  const unfreeze = async () => {
    acted.current = true;
    setOutcome(
      await run(
        {
          title: `Unfreeze ${title}?`,
          text: `End ${ending.map((o) => `"${o.reason}"`).join(', ')} now; recurring freezes stay.${outsideTerraform(activity)}`,
          action: 'Unfreeze',
        },
        withoutFreezes(current, ending),
        (after) =>
          `Ended ${ending.map((o) => `"${o.reason}"`).join(', ')}: ${after.frozen ? `still frozen until ${time(String(after.frozenUntil))} (${after.frozenReason}).` : 'the queue is not frozen.'}`,
      ),
    );
  };
  const describedUntil = ['freeze-until-meaning', error?.field === 'until' ? 'freeze-error' : '']
    .filter(Boolean)
    .join(' ');
  const describedReason = ['freeze-reason-meaning', error?.field === 'reason' ? 'freeze-error' : '']
    .filter(Boolean)
    .join(' ');
  const errorLine = (/** @type {string} */ field) =>
    error?.field === field ? html`<p class="field-error" id="freeze-error">${error.text}</p>` : null;

  return html`<section class="card" aria-labelledby="freezes-title" ref=${section}>
    <h2 id="freezes-title">Freezes</h2>
    <p class="meaning">${sentence(schema.description)}</p>
    <${FreezeBanner} activity=${activity} />
    <dl class="facts">
      <dt><code>oneOff</code></dt>
      <dd>${current.oneOff.length === 0 ? 'none' : html`<ul class="plain">${current.oneOff.map((o) => html`<li>${time(o.from)} – ${time(o.until)}: ${o.reason}</li>`)}</ul>`}
        <span class="meaning block">${sentence(parts.oneOff?.description)}</span></dd>
      <dt><code>windows</code></dt>
      <dd>${current.windows.length === 0 ? 'none' : html`<ul class="plain">${current.windows.map((w) => html`<li>${windowText(w)}</li>`)}</ul>`}
        <span class="meaning block">${sentence(parts.windows?.description)}</span></dd>
      <dt><code>exemptLabels</code></dt>
      <dd>${current.exemptLabels.length === 0 ? 'none' : current.exemptLabels.join(', ')}
        <span class="meaning block">${sentence(parts.exemptLabels?.description)}</span></dd>
      <dt><code>stopTesting</code></dt>
      <dd>${valueWords(current.stopTesting)}<span class="meaning block">${sentence(parts.stopTesting?.description)}</span></dd>
    </dl>
    <p class="muted small">
      Recurring windows, exempt labels and stopTesting are changed with updateQueue's${' '}
      <code>freezes</code> or <code>greenline queue update --freezes</code>.
    </p>
    ${
      ending.length > 0 && html`<div class="controls"><button type="button" onClick=${unfreeze}>Unfreeze</button></div>`
    }
    <form class="freeze-form" noValidate onSubmit=${freeze} aria-labelledby="freeze-form-title">
      <h3 id="freeze-form-title">Freeze from now</h3>
      <div class="setting">
        <label for="freeze-until">Until</label>
        <div class="field"><input type="datetime-local" id="freeze-until" name="until" required value=${until}
          aria-describedby=${describedUntil} aria-invalid=${error?.field === 'until' ? 'true' : undefined}
          onInput=${(/** @type {Event} */ e) => setUntil(/** @type {HTMLInputElement} */ (e.currentTarget).value)} /></div>
        <p class="meaning" id="freeze-until-meaning">When the freeze ends, in your browser's time zone; it starts now.</p>
        ${errorLine('until')}
      </div>
      <div class="setting">
        <label for="freeze-reason">Reason</label>
        <div class="field"><input type="text" id="freeze-reason" name="reason" required value=${reason}
          aria-describedby=${describedReason} aria-invalid=${error?.field === 'reason' ? 'true' : undefined}
          onInput=${(/** @type {Event} */ e) => setReason(/** @type {HTMLInputElement} */ (e.currentTarget).value)} /></div>
        <p class="meaning" id="freeze-reason-meaning">${sentence(oneOff.reason?.description)}</p>
        ${errorLine('reason')}
      </div>
      <div class="actions"><button type="submit">Freeze</button></div>
    </form>
    <${OutcomeLine} outcome=${outcome} id="freeze-outcome" />
  </section>`;
}
