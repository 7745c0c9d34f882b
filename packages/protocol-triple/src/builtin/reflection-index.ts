import { toBinary, type DescExtension, type DescFile, type DescMessage, type DescService } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';

/**
 * What server reflection can tell about the services of one server: their `.proto` files with every transitive
 * dependency, indexed by file name, by fully-qualified symbol and by extension.
 *
 * @remarks
 * Built from `@bufbuild/protobuf` service descriptors (`DescService`, which `defineProtoService` keeps on each
 * method as `idl.descriptor`); rebuilt whenever the server's set of services changes. Symbols are the names a
 * reflection client asks for: packages' services, methods (`pkg.Service.Method`), messages (nested too), their
 * fields, enums and extensions. Files are answered as serialized `google.protobuf.FileDescriptorProto`s, the file
 * asked for first, then its dependencies (each serialized once per index).
 *
 * @example
 * ```ts
 * const index = new ReflectionIndex([GreeterDesc]);
 * index.serviceNames(); // ['weft.example.v1.Greeter']
 * index.fileContainingSymbol('weft.example.v1.Greeter.SayHello'); // [greeter.proto, …its imports] serialized
 * ```
 */
export class ReflectionIndex {
  private readonly services: readonly string[];
  private readonly files = new Map<string, DescFile>();
  private readonly symbols = new Map<string, DescFile>();
  private readonly extensions = new Map<string, Map<number, DescExtension>>();
  private readonly bytes = new Map<DescFile, Uint8Array>();

  constructor(services: Iterable<DescService>) {
    const names = new Set<string>();
    for (const service of services) {
      names.add(service.typeName);
      this.addFile(service.file);
    }
    this.services = [...names].sort();
  }

  /** The fully-qualified names of the described services, sorted. */
  serviceNames(): readonly string[] {
    return this.services;
  }

  /** The names of the described files (dependencies included), sorted. */
  fileNames(): readonly string[] {
    return [...this.files.keys()].sort();
  }

  /** The file of this name (`weft/example/v1/greeter.proto`) and its dependencies, or `undefined`. */
  fileByName(name: string): Uint8Array[] | undefined {
    const file = this.files.get(name);
    return file === undefined ? undefined : this.withDependencies(file);
  }

  /** The file declaring this fully-qualified symbol (a leading `.` is accepted) and its dependencies. */
  fileContainingSymbol(symbol: string): Uint8Array[] | undefined {
    const file = this.symbols.get(symbol.startsWith('.') ? symbol.slice(1) : symbol);
    return file === undefined ? undefined : this.withDependencies(file);
  }

  /** The file declaring extension `number` of message `type`, and its dependencies. */
  fileContainingExtension(type: string, number: number): Uint8Array[] | undefined {
    const extension = this.extensions.get(type)?.get(number);
    return extension === undefined ? undefined : this.withDependencies(extension.file);
  }

  /** The numbers of the known extensions of message `type` (`[]` for none), or `undefined` for an unknown type. */
  extensionNumbers(type: string): number[] | undefined {
    const known = this.extensions.get(type);
    if (known !== undefined) return [...known.keys()].sort((a, b) => a - b);
    return this.symbols.has(type) ? [] : undefined;
  }

  /** Whether `type` names a message of the index. */
  hasSymbol(symbol: string): boolean {
    return this.symbols.has(symbol);
  }

  private addFile(file: DescFile): void {
    const name = file.proto.name;
    if (this.files.has(name)) return;
    this.files.set(name, file);
    for (const dependency of file.dependencies) this.addFile(dependency);
    for (const service of file.services) {
      this.symbols.set(service.typeName, file);
      for (const method of service.methods) this.symbols.set(`${service.typeName}.${method.name}`, file);
    }
    for (const message of file.messages) this.addMessage(message);
    for (const enumeration of file.enums) this.symbols.set(enumeration.typeName, file);
    for (const extension of file.extensions) this.addExtension(extension);
  }

  private addMessage(message: DescMessage): void {
    const file = message.file;
    this.symbols.set(message.typeName, file);
    for (const field of message.fields) this.symbols.set(`${message.typeName}.${field.name}`, file);
    for (const oneof of message.oneofs) this.symbols.set(`${message.typeName}.${oneof.name}`, file);
    for (const nested of message.nestedMessages) this.addMessage(nested);
    for (const enumeration of message.nestedEnums) this.symbols.set(enumeration.typeName, file);
    for (const extension of message.nestedExtensions) this.addExtension(extension);
  }

  private addExtension(extension: DescExtension): void {
    this.symbols.set(extension.typeName, extension.file);
    const type = extension.extendee.typeName;
    let numbers = this.extensions.get(type);
    if (numbers === undefined) this.extensions.set(type, (numbers = new Map()));
    numbers.set(extension.number, extension);
  }

  /** `file` then its transitive dependencies, each once, serialized. */
  private withDependencies(file: DescFile): Uint8Array[] {
    const out: Uint8Array[] = [];
    const seen = new Set<DescFile>();
    const visit = (f: DescFile) => {
      if (seen.has(f)) return;
      seen.add(f);
      out.push(this.serialized(f));
      for (const dependency of f.dependencies) visit(dependency);
    };
    visit(file);
    return out;
  }

  private serialized(file: DescFile): Uint8Array {
    let bytes = this.bytes.get(file);
    if (bytes === undefined) {
      bytes = toBinary(FileDescriptorProtoSchema, file.proto);
      this.bytes.set(file, bytes);
    }
    return bytes;
  }
}
