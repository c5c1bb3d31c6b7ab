/** A Map that forgets its oldest entries beyond `limit`: memory stays bounded however long the inbox runs. */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.has(key)) this.delete(key);
    super.set(key, value);
    while (this.size > this.limit) {
      const oldest = this.keys().next();
      if (oldest.done === true) break;
      this.delete(oldest.value);
    }
    return this;
  }
}
