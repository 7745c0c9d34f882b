import type { ActivateCandidate } from './activate.js';
import { getSpiMetadata, type AbstractClass, type ActivateMetadata, type Class, type SpiMetadata, type WrapperMetadata } from './decorators.js';
import type { ManifestRecord } from './discovery.js';
import { ExtensionError, ExtensionErrorCode } from './extension-error.js';
import { describeSource } from './extension-messages.js';

/** Where an extension class came from. */
export type ExtensionSource =
  | { readonly kind: 'manifest'; readonly record: ManifestRecord }
  | { readonly kind: 'programmatic' };

/** A named extension class of a point. */
export interface ExtensionDefinition {
  readonly name: string;
  readonly cls: Class;
  readonly activate: ActivateMetadata | undefined;
  readonly source: ExtensionSource;
}

/** A wrapper class of a point. */
export interface WrapperDefinition {
  readonly name: string;
  readonly cls: Class;
  readonly wrapper: WrapperMetadata;
  readonly source: ExtensionSource;
}

/** The hand-written adaptive class of a point. */
export interface AdaptiveDefinition {
  readonly name: string;
  readonly cls: Class;
  readonly source: ExtensionSource;
}

/**
 * The classes registered for one extension point in one scope — named extensions, wrappers, the adaptive
 * class — and the names that cannot be used (claimed twice, failed to load). Holds no instances.
 *
 * @remarks Filled by the manifest loading phase and by `addExtension`/`replaceExtension`; the
 * `ExtensionLoader` creates and caches instances from it.
 * @internal
 */
export class ExtensionDefinitions {
  /** Named extensions by name. */
  readonly extensions = new Map<string, ExtensionDefinition>();
  /** The first name each class is registered under. */
  readonly classNames = new Map<Function, string>();
  /** Wrappers, the smallest `order` first (after `changed()`). */
  readonly wrappers: WrapperDefinition[] = [];
  adaptive: AdaptiveDefinition | undefined;
  /** Names claimed twice: the message explaining by whom. */
  readonly duplicates = new Map<string, string>();
  /** Recorded load failures by name. */
  readonly failures = new Map<string, ExtensionError>();
  private candidates: ActivateCandidate[] | undefined;

  constructor(
    readonly spi: AbstractClass,
    readonly point: SpiMetadata,
  ) {}

  /** Registers (or replaces) a named extension. */
  setExtension(name: string, cls: Class, activate: ActivateMetadata | undefined, source: ExtensionSource): void {
    this.extensions.set(name, { name, cls, activate, source });
    if (!this.classNames.has(cls)) this.classNames.set(cls, name);
  }

  /**
   * Registers the adaptive class.
   * @throws `ERR_SPI_DUPLICATE_NAME` when another adaptive class is registered.
   */
  setAdaptive(name: string, cls: Class, source: ExtensionSource): void {
    if (this.adaptive !== undefined && this.adaptive.cls !== cls) {
      throw new ExtensionError(
        ExtensionErrorCode.DUPLICATE_NAME,
        `More than one adaptive class for ${this.point.id}: ${this.adaptive.cls.name} (${describeSource(this.adaptive.source)}) ` +
          `and ${cls.name} (${describeSource(source)}). Keep one.`,
      );
    }
    this.adaptive = { name, cls, source };
  }

  /**
   * Checks that `cls` extends this point's class, hinting at a duplicated core when it extends another copy.
   * @throws `ERR_SPI_NOT_SUBCLASS`.
   */
  assertSubclass(cls: Function, what: string): void {
    if (cls.prototype instanceof (this.spi as Function)) return;
    let hint = '';
    for (let proto = Object.getPrototypeOf(cls) as Function | null; proto !== null && proto !== Function.prototype; proto = Object.getPrototypeOf(proto)) {
      if (getSpiMetadata(proto)?.id === this.point.id) {
        hint =
          ` It extends a different copy of ${this.point.className} — two copies of the package defining ${this.point.id} ` +
          `(usually @weft/core) are installed; run "npm ls @weft/core" and dedupe.`;
        break;
      }
    }
    throw new ExtensionError(
      ExtensionErrorCode.NOT_SUBCLASS,
      `${what}: class ${cls.name || '(anonymous)'} does not extend ${this.point.className} (${this.point.id}).${hint}`,
    );
  }

  /** The usable names (registered, not claimed twice), in registration order. */
  names(): string[] {
    return [...this.extensions.keys()].filter((n) => !this.duplicates.has(n));
  }

  /** Every registered class: named extensions, wrappers, the adaptive class. */
  allClasses(): Class[] {
    const out: Class[] = [...this.extensions.values()].map((d) => d.cls);
    for (const w of this.wrappers) out.push(w.cls);
    if (this.adaptive !== undefined) out.push(this.adaptive.cls);
    return out;
  }

  /** What activation selects from: the usable named extensions with their metadata (cached until a change). */
  activateCandidates(): ActivateCandidate[] {
    if (this.candidates === undefined) {
      this.candidates = [...this.extensions.values()]
        .filter((d) => !this.duplicates.has(d.name))
        .map((d) => ({ name: d.name, activate: d.activate }));
    }
    return this.candidates;
  }

  /** To call after every registration: drops the derived candidates and re-sorts the wrappers. */
  changed(): void {
    this.candidates = undefined;
    this.wrappers.sort((a, b) => a.wrapper.order - b.wrapper.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
