/**
 * The dashboard's state controls say what a queue state means in the engine's own words
 * (src/engine/queue-states.ts), the words the PRs' waitingOn and reasons use.
 */
import { describe, expect, it } from 'vitest';
import { QUEUE_STATE_MEANING } from '../../src/engine/queue-states.js';
import { CONTROLS } from '../../web/queue-state.js';

const meaning = (sentence: string): string => sentence.slice(sentence.indexOf(':') + 1).trim();

describe('the dashboard state controls', () => {
  it.each(CONTROLS.map((c) => [c.label, c] as const))(
    '%s confirms with the meaning of its state',
    (_label, control) => {
      const state = control.state as keyof typeof QUEUE_STATE_MEANING;
      expect(meaning(control.text)).toBe(meaning(QUEUE_STATE_MEANING[state]));
    },
  );
});
