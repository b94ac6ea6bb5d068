/**
 * Fields of a plain object made from where they lie (a hit in its answer's page) when first read.
 *
 * A default `searchMany` answer kept every hit's metadata parsed (a Debian item's: an object, a
 * version, a list of tags) and its highlights as pairs until the call returned: making them, and
 * the garbage collector copying and marking them, was a third of the batch's CPU. Such a field
 * is an own enumerable accessor, so `Object.keys`, spread, `JSON.stringify`, `structuredClone`,
 * `deepStrictEqual` and `util.inspect` see a plain object's field (they read it, which makes
 * it); every read returns the same value, and a write, a delete or a redefinition does what it
 * does to a data property. Only `Object.getOwnPropertyDescriptor` tells it apart.
 *
 * The field stays an accessor once read: turning it into a data property (a reconfiguration of
 * every result's hidden class) made a `JSON.stringify` of a whole batch a third slower than with
 * eager fields; kept values cost nothing of the kind.
 *
 * Where the fields lie, and their values once made, are kept in private fields, stamped onto the
 * object by a constructor that returns it: a private field is no property, so nothing that lists
 * or copies the object sees it.
 */
import { inspect } from 'node:util';

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

/** `util.inspect` shows the fields' values, as it shows a plain object's (not `[Getter/Setter]`). */
const SHOWN_AS_PLAIN: PropertyDescriptor = {
  value(this: object) {
    return { ...this };
  },
  writable: true,
  enumerable: false,
  configurable: true,
};

/** Deferred fields made by `decoders`, by key. Each call makes its own private names. */
export function deferredFields<S>(decoders: Record<string, Decode<S>>): DeferredFields<S> {
  class Stamped extends Carrier {
    #source: S;
    #at: number;
    /** The fields' values once made or written, by key. */
    #values: Record<string, unknown> | undefined;

    constructor(target: object, source: S, at: number) {
      super(target);
      this.#source = source;
      this.#at = at;
      this.#values = undefined;
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
      const values = holder.#values;
      if (values !== undefined && key in values) return values[key];
      const value = decoders[key]!(holder.#source, holder.#at);
      Stamped.keep(holder, key, value);
      return value;
    }

    static write(o: object, key: string, value: unknown): void {
      // Inherited: the write makes an own data property, as it would over a data property.
      if (Stamped.holder(o) !== o)
        Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
      else if (Object.isFrozen(o)) throw new TypeError(`Cannot assign to read only property '${key}' of object`);
      else Stamped.keep(o as Stamped, key, value);
    }

    static keep(holder: Stamped, key: string, value: unknown): void {
      holder.#values ??= {};
      holder.#values[key] = value;
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
      Object.defineProperty(target, inspect.custom, SHOWN_AS_PLAIN);
    },
    defer(target, key) {
      Object.defineProperty(target, key, descriptors.get(key)!);
    },
  };
}
