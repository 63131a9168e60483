// @ts-check
// The settings page's State section: the queue's state and the controls updateQueue accepts now.
import { CONTROLS, outsideTerraform } from '../queue-state.js';
import { html, useRef, useState } from '../ui.js';
import { OutcomeLine, useFocusKept } from './outcome.js';

/** @typedef {import('../../src/client/index.js').QueueSettings} QueueSettings */
/** @typedef {import('../../src/client/index.js').QueueActivity} QueueActivity */
/** @typedef {import('./outcome.js').Outcome} Outcome */
/** @typedef {import('./outcome.js').Run} Run */

/**
 * The queue's state and its controls: each shown only when updateQueue accepts it (a queue switching
 * modes takes no state until the switch completed), each after confirmation.
 * @param {{ q: QueueSettings, activity: QueueActivity, title: string, run: Run }} props
 */
export function StateControls({ q, activity, title, run }) {
  const [outcome, setOutcome] = useState(/** @type {Outcome | null} */ (null));
  const state = String(q.state).toUpperCase();
  const switching = state === 'SWITCHING_MODES';
  const section = useRef(/** @type {HTMLElement | null} */ (null));
  const acted = useFocusKept(section, state);
  return html`<section class="card" aria-labelledby="state-title" ref=${section}>
    <h2 id="state-title">State</h2>
    <p>The queue is <strong class=${`badge state-${state.toLowerCase()}`}>${state}</strong>.
      ${switching && ' It is switching modes: its state can be set once the switch completed.'}</p>
    <div class="controls" role="group" aria-label="Queue state">
      ${CONTROLS.filter((c) => !switching && c.state !== state).map(
        (c) =>
          html`<button type="button" key=${c.state} onClick=${async () => {
            acted.current = true;
            setOutcome(
              await run(
                { title: `${c.label} ${title}?`, text: c.text + outsideTerraform(activity), action: c.label },
                { state: c.state },
                (after) => `${c.label}: done. The queue is ${String(after.state).toUpperCase()}.`,
              ),
            );
          }}>${c.label}</button>`,
      )}
    </div>
    <${OutcomeLine} outcome=${outcome} id="state-outcome" />
  </section>`;
}
