/**
 * Queue state and settings (contract §2.10, §4, §5.4).
 *
 *   state            admits NOT_READY   starts runs   merges
 *   RUNNING          yes                yes           yes
 *   PAUSED           no                 no            no     (results of runs in flight are recorded)
 *   DRAINING         no                 yes           yes    (for entries already admitted)
 *   SWITCHING_MODES  no                 yes           yes    (entered by the engine only)
 *
 * Pausing emits `queue.paused`; leaving PAUSED (to RUNNING or DRAINING) emits `queue.resumed`.
 *
 * A mode change while entries are admitted enters SWITCHING_MODES; once none is left the new mode
 * applies and the queue returns to RUNNING. With nothing admitted the switch is immediate. While
 * switching, a state write is refused (SWITCHING_MODES); a settings write applies (a mode retargets
 * the switch) unless it asks to be refused (`refuseWhileSwitching`, Trunk's v2).
 */
import { adaptToConfig } from './adaptive.js';
import { validateConfigPatch } from './config-validation.js';
import type { Draft } from './draft.js';
import { isAdmitted } from './ordering.js';
import { emitQueueEvent } from './transitions.js';
import type { EngineEvent, QueueConfig, Rejection } from './types.js';

type Ev<K extends EngineEvent['kind']> = Extract<EngineEvent, { kind: K }>;

export function onSetState(d: Draft, ev: Ev<'setState'>): Rejection | null {
  if (ev.state !== 'RUNNING' && ev.state !== 'PAUSED' && ev.state !== 'DRAINING') {
    return {
      code: 'INVALID_EVENT',
      message: `state must be RUNNING, PAUSED or DRAINING, got ${JSON.stringify(ev.state)}`,
    };
  }
  if (d.state === 'SWITCHING_MODES') {
    return {
      code: 'SWITCHING_MODES',
      message: `the queue is switching to ${d.internal.pendingMode} mode; its state can be set once the switch completed`,
    };
  }
  if (d.state !== ev.state) {
    const was = d.state;
    d.state = ev.state;
    d.touch();
    if (ev.state === 'PAUSED' || was === 'PAUSED')
      emitQueueEvent(d, ev.state === 'PAUSED' ? 'queue.paused' : 'queue.resumed');
  }
  return null;
}

export function onUpdateConfig(d: Draft, ev: Ev<'updateConfig'>): Rejection | null {
  if (ev.refuseWhileSwitching && d.state === 'SWITCHING_MODES') {
    return {
      code: 'SWITCHING_MODES',
      message: `the queue is switching to ${d.internal.pendingMode} mode; its settings can be changed once the switch completed`,
    };
  }
  const problem = validateConfigPatch(ev.patch as Record<string, unknown>);
  if (problem) return { code: 'INVALID_CONFIG', message: problem };
  const { mode, ...rest } = ev.patch;
  const defined = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as Partial<QueueConfig>;
  d.config = { ...d.config, ...defined };
  adaptToConfig(d);
  if (mode !== undefined) requestMode(d, mode);
  d.reshaped(); // the mode decides the topology

  return null;
}

function requestMode(d: Draft, mode: QueueConfig['mode']): void {
  if (d.state === 'SWITCHING_MODES') {
    if (mode === d.config.mode) {
      d.internal.pendingMode = null;
      d.state = 'RUNNING';
    } else {
      d.internal.pendingMode = mode;
    }
    return;
  }
  if (mode === d.config.mode) return;
  if (d.allEntries().some(isAdmitted)) {
    d.internal.pendingMode = mode;
    d.state = 'SWITCHING_MODES';
  } else {
    d.config = { ...d.config, mode };
  }
}

/** Finishes a mode switch once nothing admitted is left. Returns whether it did. */
export function completeModeSwitch(d: Draft): boolean {
  if (d.state !== 'SWITCHING_MODES' || d.internal.merge || d.allEntries().some(isAdmitted)) return false;
  d.config = { ...d.config, mode: d.internal.pendingMode ?? d.config.mode };
  d.internal.pendingMode = null;
  d.state = 'RUNNING';
  d.reshaped();
  return true;
}
