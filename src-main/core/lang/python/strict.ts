/** The strict-mode subset, as data: node kinds allowed, and methods callable on values. */
export const STRICT_NODE_KINDS: ReadonlySet<string> = new Set([
  'Module', 'StatementList', 'Suite', 'Assignment', 'AugmentedAssignment', 'AssignmentExpression', 'TypeAnnotation',
  'Name', 'Constant', 'Number', 'StringList', 'String', 'FormatString', 'Call', 'Argument', 'MemberAccess', 'Index',
  'Slice', 'List', 'Tuple', 'Set', 'Dictionary', 'DictionaryKeyEntry', 'DictionaryExpandEntry', 'Unpack',
  'BinaryOperation', 'UnaryOperation', 'Ternary', 'Comprehension', 'ComprehensionFor', 'ComprehensionIf', 'If', 'For',
  'Break', 'Continue', 'Pass', 'Lambda', 'Parameter', 'Assert', 'Ellipsis', 'Error',
]);

/** Methods of str, list, dict, set and the pre-imported modules' values that strict scripts may call. */
export const STRICT_METHODS: ReadonlySet<string> = new Set([
  // dict
  'get', 'items', 'keys', 'values', 'setdefault', 'update', 'pop', 'copy',
  // list
  'append', 'extend', 'insert', 'remove', 'sort', 'index', 'count', 'reverse', 'clear',
  // set
  'add', 'discard', 'union', 'intersection', 'difference', 'issubset', 'issuperset',
  // str
  'lower', 'upper', 'strip', 'lstrip', 'rstrip', 'split', 'rsplit', 'join', 'replace', 'startswith', 'endswith',
  'find', 'rfind', 'format', 'title', 'capitalize', 'isdigit', 'isalpha', 'isalnum', 'zfill', 'splitlines', 'casefold',
  // values from modules (datetime, Counter...)
  'isoformat', 'strftime', 'most_common', 'total', 'date', 'timestamp',
]);
