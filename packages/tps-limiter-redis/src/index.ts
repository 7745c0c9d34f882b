/**
 * `@weft/tps-limiter-redis`: the `redis` extension of `weft.filter.TpsLimiter` — one `tps` window shared by every
 * provider process of a service, kept in Redis.
 *
 * @packageDocumentation
 */
export { RedisTpsLimiter } from './redis-tps-limiter.js';
export { RedisTpsConfigValidator } from './redis-tps-config-validator.js';
export { RedisTpsConfig } from './redis-tps-config.js';
export { redisTpsSettingsOf, type RedisOnErrorPolicy, type RedisTpsSettings, type RedisWindowKind } from './redis-tps-settings.js';
export { RedisTpsDefaults, RedisTpsKeys } from './redis-tps-keys.js';
export { FIXED_WINDOW_LUA, SLIDING_LOG_LUA } from './lua-scripts.js';
