// @ts-check
// The pull request page's actions: those the API accepts for the PR now (its `actions`), each after a
// confirmation, with the outcome in words.
import { confirmThen } from '../actions.js';
import { call } from '../api.js';
import { useScopes } from '../permissions.js';
import { html, useEffect, useState } from '../ui.js';
import { words } from '../words.js';
import { priorityChoices } from './words.js';

/** @typedef {import('../../src/client/index.js').SubmittedPullRequest} SubmittedPullRequest */
/** @typedef {import('../../src/client/index.js').QueueRequest} QueueKey */
/** @typedef {import('../actions.js').Outcome} Outcome */

/**
 * The actions the API accepts for the PR now (its `actions`), each after a confirmation, with the
 * outcome in words.
 * @param {{ queueKey: QueueKey, pr: SubmittedPullRequest, reload: () => Promise<void> }} props
 */
export function Actions({ queueKey, pr, reload }) {
  const [outcome, setOutcome] = useState(/** @type {Outcome | null} */ (null));
  const [priority, setPriority] = useState(pr.priorityName);
  // A new priority from elsewhere (the API, another tab) shows in the choice.
  useEffect(() => setPriority(pr.priorityName), [pr.priorityName]);
  const n = pr.prNumber;
  const address = { ...queueKey, pr: { number: n } };
  /**
   * @param {{ title: string, text: string, action: string }} dialog
   * @param {() => Promise<unknown>} action
   * @param {string} doneText
   */
  const act = async (dialog, action, doneText) => {
    const result = await confirmThen(dialog, action, doneText);
    if (!result) return;
    setOutcome(result);
    await reload();
  };
  const can = useScopes();
  // Only what the token may do: every action needs pull_requests:write, a priority also pull_requests:priority.
  const write = can('pull_requests:write');
  const actions = {
    cancel: write && pr.actions.cancel,
    restartTests: write && pr.actions.restartTests,
    submitAgain: write && pr.actions.submitAgain,
    changePriority: write && can('pull_requests:priority') && pr.actions.changePriority,
  };
  const any = actions.cancel || actions.restartTests || actions.changePriority || actions.submitAgain;
  return html`
    ${
      any
        ? html`<div class="controls" role="group" aria-label="Pull request actions">
            ${
              actions.restartTests
                ? html`<button
                    type="button"
                    data-focus-key="restart"
                    onClick=${() =>
                      act(
                        {
                          title: `Restart the tests of #${n}?`,
                          text: `Its test run stops and #${n} is tested again (with the PRs tested together with it).`,
                          action: 'Restart tests',
                        },
                        () => call('restartTestsOnPullRequest', address),
                        `The tests of #${n} were restarted.`,
                      )}
                  >
                    Restart tests
                  </button>`
                : null
            }
            ${
              actions.submitAgain
                ? html`<button
                    type="button"
                    data-focus-key="submit"
                    onClick=${() =>
                      act(
                        {
                          title: `Submit #${n} again?`,
                          text: `#${n} goes back into the queue as it is now on the forge, and is tested again once it is ready.`,
                          action: 'Submit again',
                        },
                        () => call('submitPullRequest', address),
                        `#${n} was submitted again.`,
                      )}
                  >
                    Submit again
                  </button>`
                : null
            }
            ${
              actions.changePriority
                ? html`<span class="priority-control">
                    <label for="priority">Priority</label>
                    <select id="priority" value=${priority} onChange=${(/** @type {Event & { currentTarget: HTMLSelectElement }} */ e) => setPriority(e.currentTarget.value)}>
                      ${priorityChoices(pr.priorityName).map((p) => html`<option value=${p}>${p}</option>`)}
                    </select>
                    <button
                      type="button"
                      class="quiet"
                      data-focus-key="priority"
                      disabled=${priority === pr.priorityName}
                      onClick=${() =>
                        act(
                          {
                            title: `Change the priority of #${n} to ${priority}?`,
                            text:
                              priority === 'urgent'
                                ? `An urgent PR goes ahead of the others and may interrupt the test runs in flight.`
                                : `#${n} takes its place in the queue by its new priority.`,
                            action: 'Change priority',
                          },
                          () => call('submitPullRequest', { ...address, priority }),
                          `The priority of #${n} is now ${priority}.`,
                        )}
                    >
                      Change priority
                    </button>
                  </span>`
                : null
            }
            ${
              actions.cancel
                ? html`<button
                    type="button"
                    class="danger"
                    data-focus-key="cancel"
                    onClick=${() =>
                      act(
                        {
                          title: `Cancel #${n}?`,
                          text: `#${n} leaves the queue; its test runs stop. It can be submitted again later.`,
                          action: 'Cancel PR',
                        },
                        () => call('cancelPullRequest', address),
                        `#${n} was cancelled: it left the queue.`,
                      )}
                  >
                    Cancel PR
                  </button>`
                : null
            }
          </div>`
        : html`<p class="muted" id="no-actions">
            #${n} is ${words(pr.state).toLowerCase()}: there is nothing to cancel, restart or submit again.
          </p>`
    }
    ${
      outcome
        ? html`<p class=${outcome.ok ? 'notice' : 'error'} id="pr-outcome" title=${outcome.code}>${outcome.text}</p>`
        : null
    }
  `;
}
