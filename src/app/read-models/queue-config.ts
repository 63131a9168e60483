/** A queue's settings as parsed from its row, kept while their JSON is unchanged. */
import type { QueueConfig } from '../../engine/types.js';
import type { QueueRow } from '../../store/database.js';

/** Parsed settings by queue id, with the JSON they were parsed from. */
const settings = new Map<string, { text: string; config: Readonly<QueueConfig> }>();
/** More queues than a server keeps: past this, the parsed settings are dropped and parsed again on use. */
const SETTINGS_KEPT = 10_000;

/** A queue's settings from its row, parsed again only when their JSON changed: they are read far more often than changed. */
export function configOfRow(queue: Pick<QueueRow, 'id' | 'config'>): Readonly<QueueConfig> {
  const known = settings.get(queue.id);
  if (known?.text === queue.config) return known.config;
  if (settings.size >= SETTINGS_KEPT) settings.clear();
  const config = JSON.parse(queue.config) as QueueConfig;
  settings.set(queue.id, { text: queue.config, config });
  return config;
}
