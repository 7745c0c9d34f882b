/**
 * `@weft/qos`: Dubbo's QoS endpoint for a Weft application — `live`/`ready`/`startup` probes for orchestrators,
 * `ls`, and `online`/`offline` to take providers out of rotation without stopping them.
 *
 * @packageDocumentation
 */
export { QosKeys, QosProtocolWrapper, qosServerOf } from './qos-protocol-wrapper.js';
export { renderTable } from './qos-table.js';
export { FOREIGN_IP_REFUSED } from './qos-server.js';
