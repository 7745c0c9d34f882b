import { RegistrySession as SharedRegistrySession, type URL } from '@weft/core';

import { CliFailure } from './io.js';
import { cliPackageDir } from './project.js';

/**
 * The CLI's registry session: core's shared {@link SharedRegistrySession} (also used by `@weft/admin`), opened
 * from the CLI's own package directory, failing with {@link CliFailure}.
 *
 * @remarks What it finds are the registry clients and validators the CLI depends on (`@weft/registry-embedded`,
 * `@weft/registry-zookeeper`, `@weft/mock`, `@weft/routers`), never code of the application the CLI is run in.
 * @internal
 */
export type RegistrySession = SharedRegistrySession;

/** Opens a {@link RegistrySession} for the CLI. @internal */
export const RegistrySession = {
  open(registryUrl: URL, timeout: number): Promise<SharedRegistrySession> {
    return SharedRegistrySession.open(registryUrl, { root: cliPackageDir(), timeout, application: 'weft-cli', fail: (message) => new CliFailure(message) });
  },
};
