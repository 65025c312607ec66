/** Canonical FQNames of the Morphir SDK types with a built-in Avro mapping. */
export const SDK = {
  bool: 'morphir/SDK:basics#bool',
  int: 'morphir/SDK:basics#int',
  float: 'morphir/SDK:basics#float',
  string: 'morphir/SDK:string#string',
  char: 'morphir/SDK:char#char',
  maybe: 'morphir/SDK:maybe#maybe',
  list: 'morphir/SDK:list#list',
  set: 'morphir/SDK:set#set',
  dict: 'morphir/SDK:dict#dict',
  result: 'morphir/SDK:result#result',
  localDate: 'morphir/SDK:local-date#local-date',
  localTime: 'morphir/SDK:local-time#local-time',
  instant: 'morphir/SDK:instant#instant',
  dateTime: 'morphir/SDK:date-time#date-time',
  uuid: 'morphir/SDK:uuid#uuid',
  decimal: 'morphir/SDK:decimal#decimal',
} as const;

/** Prefix of every Morphir SDK FQName; an SDK type without a mapping is AVRO001. */
export const SDK_PREFIX = 'morphir/SDK:';
