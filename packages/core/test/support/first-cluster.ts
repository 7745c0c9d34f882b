// A cluster that calls the directory's first invoker and passes its answer through as is (a completed Result
// stays synchronous): enough to refer without @weft/cluster.
import { Cluster, Invoker, type Directory, type Invocation, type Result, type URL } from '@weft/core';

export class FirstCluster extends Cluster {
  join(directory: Directory): Invoker {
    return new (class extends Invoker {
      getUrl(): URL {
        return directory.getUrl();
      }
      invoke(invocation: Invocation): Result | Promise<Result> {
        return (directory.list(invocation)[0] as Invoker).invoke(invocation);
      }
    })();
  }
}
