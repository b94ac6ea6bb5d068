/**
 * Fields of a plain object made from where they lie (a hit in its answer's page) when first read.
 *
 * A default `searchMany` answer kept every hit's metadata parsed (a Debian item's: an object, a
 * version, a list of tags) and its highlights as pairs until the call returned: making them, and
 * the garbage collector copying and marking them, was a third of the batch's CPU. Such a field
 * stays an own enumerable property, so `Object.keys`, spread, `JSON.stringify`, `structuredClone`
 * and `deepStrictEqual` see a plain object's field (they read it, which makes it). The first read
 * makes the value and turns the field into the data property it stands for; a write, a delete or
 * a redefinition does what it does to a data property. Until read, only
 * `Object.getOwnPropertyDescriptor` and `util.inspect` (`[Getter/Setter]`) tell it apart.
 *
 * Where the fields lie is kept in two private fields, stamped onto the object by a constructor
 * that returns it: a private field is no property, so nothing that lists or copies the object
 * sees it.
 */

/** Returns the object it is given, so that a subclass's private fields are added to that object. */
class Carrier {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: stamping private fields onto `target` is the point.
    return target;
  }
}

/** Makes a field's value from where the object's fields lie. */
export type Decode<S> = (source: S, at: number) => unknown;

/** Fields of objects stamped with a place to make them from. */
export interface DeferredFields<S> {
  /** Records where `target`'s deferred fields lie: once an object, before `defer`. */
  stamp(target: object, source: S, at: number): void;
  /** Gives the stamped `target` the field `key`, made when first read. */
  defer(target: object, key: string): void;
}

/** Values of fields whose object could not take them as data properties (sealed or frozen): rare, so not a field of every object. */
const kept = new WeakMap<object, Map<string, unknown>>();

/** Deferred fields made by `decoders`, by key. Each call makes its own private names. */
export function deferredFields<S>(decoders: Record<string, Decode<S>>): DeferredFields<S> {
  class Stamped extends Carrier {
    #source: S;
    #at: number;

    constructor(target: object, source: S, at: number) {
      super(target);
      this.#source = source;
      this.#at = at;
    }

    /** The object `o` takes its fields from: itself, or one it inherits from (as a data property's). */
    static holder(o: object): Stamped | undefined {
      let at: object | null = o;
      while (at !== null && !(#source in at)) at = Object.getPrototypeOf(at);
      return at === null ? undefined : (at as Stamped);
    }

    static read(o: object, key: string): unknown {
      const holder = Stamped.holder(o);
      if (!holder) return undefined;
      const settled = kept.get(holder);
      if (settled?.has(key)) return settled.get(key);
      const value = decoders[key]!(holder.#source, holder.#at);
      Stamped.settle(holder, key, value);
      return value;
    }

    static write(o: object, key: string, value: unknown): void {
      const holder = Stamped.holder(o);
      // Inherited: the write makes an own data property, as it would over a data property.
      if (holder !== o) Object.defineProperty(o, key, data(value, true));
      else if (Object.isFrozen(o)) throw new TypeError(`Cannot assign to read only property '${key}' of object`);
      else Stamped.settle(holder, key, value);
    }

    /** `holder`'s field is `value` from now on: a data property, or kept here if it can no longer be one. */
    static settle(holder: Stamped, key: string, value: unknown): void {
      const enumerable = Object.getOwnPropertyDescriptor(holder, key)?.enumerable ?? true;
      if (Reflect.defineProperty(holder, key, data(value, enumerable))) return;
      const settled = kept.get(holder) ?? new Map<string, unknown>();
      settled.set(key, value);
      kept.set(holder, settled);
    }
  }
  // One descriptor a key for every object: objects given the same accessors share hidden classes.
  const descriptors = new Map<string, PropertyDescriptor>();
  for (const key of Object.keys(decoders)) {
    descriptors.set(key, {
      get(this: object) {
        return Stamped.read(this, key);
      },
      set(this: object, value: unknown) {
        Stamped.write(this, key, value);
      },
      enumerable: true,
      configurable: true,
    });
  }
  return {
    stamp(target, source, at) {
      new Stamped(target, source, at);
    },
    defer(target, key) {
      Object.defineProperty(target, key, descriptors.get(key)!);
    },
  };
}

function data(value: unknown, enumerable: boolean): PropertyDescriptor {
  return { value, writable: true, enumerable, configurable: true };
}
