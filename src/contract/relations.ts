// The relations a generated operation's data may bear to an earlier operation's, declared once: a server that keys,
// compares or stores data by a relation the contract does not make (a name folded, bytes compared, the location left
// out) shows it only where two operations are so related. The model's generator draws them (src/model/uploads.ts);
// its coverage counts which were drawn.

/** How a file's name relates to an earlier file's. */
export const NAME_RELATIONS = {
  fresh: 'a name no earlier file had: the file stands alone',
  equal: 'the earlier name exactly: §4.1 makes each upload a file of its own, whatever names came before',
  case: 'the earlier name with the case of its letters changed: a store on a case-insensitive file system takes it for the same',
  nfd: 'the earlier name in the other Unicode normal form (NFD of an NFC é, or the reverse): a store that normalises names takes it for the same',
  space: 'the earlier name after a space: a server that trims names takes it for the same',
  percent: 'the earlier name with its spaces and letters beyond ASCII percent-encoded: a server that decodes names takes it for the same',
} as const;

/** How a file's bytes relate to an earlier file's. */
export const BYTES_RELATIONS = {
  fresh: 'bytes no earlier file had',
  equal: "an earlier file's bytes under another name: a store that dedupes by content may hand out the earlier file's entry, its URL and its kind",
} as const;

/** Where an upload goes, relative to the run's location. */
export const LOCATION_RELATIONS = {
  own: 'LOCATION_ID, as every other operation of the run',
  other: "FOREIGN_LOCATION_ID with FOREIGN_ACCESS_TOKEN: a store keyed without the location lets one location's upload change another's file",
} as const;

export type NameRelation = keyof typeof NAME_RELATIONS;
export type BytesRelation = keyof typeof BYTES_RELATIONS;
export type LocationRelation = keyof typeof LOCATION_RELATIONS;
/** The relations that tie a name to an earlier one. */
export type EquivalentName = Exclude<NameRelation, 'fresh'>;

/** Every relation, by the dimension it relates: what coverage counts, as `dimension: relation`. */
export const RELATIONS = { name: NAME_RELATIONS, bytes: BYTES_RELATIONS, location: LOCATION_RELATIONS } as const;

export const EQUIVALENT_NAMES = Object.keys(NAME_RELATIONS).filter((relation): relation is EquivalentName => relation !== 'fresh');

/** A name and its extension: the relations change the stem only, so that the type (§8) stays the earlier file's. */
function split(name: string): [string, string] {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
}

/**
 * The longest related name drawn, in UTF-8 bytes: well within what servers commonly keep of a name (255 bytes on most
 * file systems), which the contract does not bound. Percent-encoding a name encoded before triples each escape.
 */
const LONGEST_RELATED_NAME = 100;

/**
 * The name `relation` makes of `earlier`, or undefined where it leaves the name as it is (a name with no letter that
 * Unicode decomposes has no other normal form), so that only a changed name counts as the relation, or where it would
 * be longer than LONGEST_RELATED_NAME.
 */
export function relatedName(relation: EquivalentName, earlier: string): string | undefined {
  const [stem, extension] = split(earlier);
  const related = (() => {
    switch (relation) {
      case 'equal':
        return earlier;
      case 'case':
        return `${[...stem].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('')}${extension}`;
      case 'nfd':
        return earlier === earlier.normalize('NFC') ? earlier.normalize('NFD') : earlier.normalize('NFC');
      // Before it only: a space after the extension would change the type it names (§8).
      case 'space':
        return ` ${earlier}`;
      case 'percent':
        return `${encodeURIComponent(stem)}${extension}`;
    }
  })();
  return (relation === 'equal' || related !== earlier) && Buffer.byteLength(related) <= LONGEST_RELATED_NAME ? related : undefined;
}
