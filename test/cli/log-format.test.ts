/**
 * Server logs: pretty lines when they go to a terminal, JSON lines otherwise, unless logFormat says
 * which. The choice is a pure function of whether stderr (where the logs go) is a TTY and the setting.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { logFormatFor } from '../../src/server/server.js';

describe('log format', () => {
  it('auto (the default) is pretty on a terminal and JSON otherwise; pretty and json hold either way', () => {
    expect(loadConfig({ env: {}, cwd: '/nonexistent' }).logFormat).toBe('auto');
    expect(logFormatFor(true, 'auto')).toBe('pretty');
    expect(logFormatFor(false, 'auto')).toBe('json');
    expect(logFormatFor(true, 'json')).toBe('json');
    expect(logFormatFor(false, 'json')).toBe('json');
    expect(logFormatFor(true, 'pretty')).toBe('pretty');
    expect(logFormatFor(false, 'pretty')).toBe('pretty');
  });

  it('is set by GREENLINE_LOG_FORMAT or --log-format, any case; another value is an error listing the valid ones', () => {
    expect(loadConfig({ env: { GREENLINE_LOG_FORMAT: 'JSON' }, cwd: '/nonexistent' }).logFormat).toBe('json');
    expect(
      loadConfig({ env: { GREENLINE_LOG_FORMAT: 'json' }, flags: { logFormat: 'pretty' }, cwd: '/nonexistent' })
        .logFormat,
    ).toBe('pretty');
    expect(() => loadConfig({ env: { GREENLINE_LOG_FORMAT: 'xml' }, cwd: '/nonexistent' })).toThrow(
      new ConfigError('logFormat must be one of auto, pretty, json, got "xml"'),
    );
  });
});
