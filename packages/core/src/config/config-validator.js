var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
import { SPI } from '../extension/decorators.js';
/**
 * Validates a URL's configuration before it takes effect: the `weft.config.ConfigValidator` extension point.
 *
 * @remarks
 * Extension point `weft.config.ConfigValidator`, no default, application scope. Validators are activated like
 * filters — by group (`consumer` when a reference is created or its URL is overridden at runtime, `provider`
 * on export) and by the URL keys they care about (`@Activate({ value: ['mock'] })` runs only when `mock` or a
 * method-level `<method>.mock` is set). A validator throws an `ExtensionError` (`ERR_SPI_INVALID_PARAMETER`)
 * naming the key, the value and what is expected; the change is then refused and nothing is applied. This is how
 * a plugin makes a typo fail at refer time — or makes a bad pushed override be rejected — instead of failing
 * the first call that needs the value.
 *
 * @example
 * ```ts
 * export class MockConfigValidator extends ConfigValidator {
 *   validate(url: URL, service: ServiceDefinition | undefined, where: string) {
 *     for (const m of service?.methodNames ?? []) parseMock(url.getMethodParameter(m, 'mock'), where);
 *   }
 * }
 * // manifest: { "mock": { "module": "./dist/mock-config-validator.js", "export": "MockConfigValidator",
 * //             "activate": { "group": ["consumer"], "value": ["mock"] } } }
 * ```
 */
let ConfigValidator = class ConfigValidator {
};
ConfigValidator = __decorate([
    SPI({ id: 'weft.config.ConfigValidator' })
], ConfigValidator);
export { ConfigValidator };
//# sourceMappingURL=config-validator.js.map