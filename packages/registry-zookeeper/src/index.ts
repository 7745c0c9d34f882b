/**
 * `@weft/registry-zookeeper`: Dubbo's interface-level ZooKeeper registry for Weft — providers, consumers, override
 * rules and config-centre YAML rules, live.
 * @packageDocumentation
 */
export { ZookeeperRegistry } from './zookeeper-registry.js';
export { ZookeeperRegistryFactory } from './zookeeper-registry-factory.js';
export {
  isZkCode,
  ZookeeperClient,
  ZookeeperError,
  type ZookeeperClientOptions,
  type ZookeeperConnectionState,
  type ZookeeperNodeStat,
  type ZookeeperSession,
  type ZookeeperWatcher,
} from './zookeeper-client.js';
// The YAML configurator parser lives in core (every registry with a config centre uses it).
export { parseConfiguratorRules } from '@weft/core/spi';
