/** greenline's public API for embedding: the server, its configuration and the service interface. */
export { createServer, type Server } from './server/server.js';
export { loadConfig, readEnv, DEFAULT_CONFIG, ConfigError, type GreenlineConfig } from './config/config.js';
export type { MergeQueueService, AuthContext, QueueKey, QueueView, PrView, TestRunView } from './app/service-port.js';
export { ServiceError, SERVICE_ERRORS, type ServiceErrorCode } from './lib/errors.js';
