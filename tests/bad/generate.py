#!/usr/bin/env python3
# Writes the bad-lesson corpus: NAME.json (one problem each) and NAME.expected (the exact error line).
# Each case marks where the error must point with "@@" (removed from the file); this script turns the
# mark into LINE:COL (columns in code points), independently of the C locator. Run from anywhere:
#   python3 tests/bad/generate.py        (the generated files are committed; rerun after editing cases)
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MARK = b"@@"


def lesson(**fields):
    """A lesson as indented JSON text: fields in order, raw JSON values; None drops the default."""
    base = [
        ("title", '"The cat sat"'),
        ("tokens", '["The", "cat", "sat"]'),
        ("embeddings", "[[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1]]"),
        ("heads", "2"),
        ("weights", '{"random": {"seed": 42, "qkv_std": 1.0, "out_std": 0.5}}'),
    ]
    extra = fields.pop("_extra", [])
    keys = dict(base)
    keys.update(fields)
    pairs = [(k, keys[k]) for k, _ in base if keys[k] is not None]
    pairs += [(k, v) for k, v in fields.items() if k not in dict(base) and v is not None]
    pairs += extra
    return "{\n" + ",\n".join('  %s: %s' % (k if k.startswith("@@") else '"%s"' % k, v) for k, v in pairs) + "\n}\n"


def small(**fields):
    """d_model 2, heads 2, d_k 1, explicit weights (for the shape errors of each weight form)."""
    f = {
        "tokens": '["a", "b"]',
        "embeddings": "[[1, 0], [0, 1]]",
        "weights": fields.pop("weights", None)
        or '{\n    "W_Q": [[[1], [0]], [[0], [1]]],\n    "W_K": [[[1], [0]], [[0], [1]]],\n'
        '    "W_V": [[[1], [0]], [[0], [1]]],\n    "W_O": [[1, 0], [0, 1]]\n  }',
    }
    f.update(fields)
    return lesson(**f)


PYTORCH = ('{"pytorch": {\n    "in_proj_weight": [[1, 0], [0, 1], [1, 0], [0, 1], [1, 0], [0, 1]],\n'
           '    "in_proj_bias": [0, 0, 0, 0, 0, 0],\n    "out_proj_weight": [[1, 0], [0, 1]],\n'
           '    "out_proj_bias": [0, 0]\n  }}')

SOURCE = '{"tokens": ["Le", "chat"], "embeddings": [[1, 0, 0, 0], [0, 1, 0, 0]]}'


def layers(key, value):
    """A lesson of layers (a "vocabulary", two layers) with one more member: key (marked) and value."""
    return ('{\n  "title": "Two layers",\n  "vocabulary": ["a", "b", "c"],\n  "tokens": ["a", "b", "c"],\n'
            '  "d_model": 2,\n  "heads": 1,\n  "layers": 2,\n'
            '  "token_embeddings": {"random": {"seed": 1, "std": 1}},\n'
            '  "weights": {"random": {"seed": 2, "qkv_std": 1, "out_std": 0.5}},\n'
            '  "unembedding": {"random": {"seed": 3, "std": 1}},\n'
            '  @@"%s": %s\n}\n' % (key, value))


ONE_LAYER = ('is not a key of a lesson of layers (a lesson with a "vocabulary"): rope, kv_heads, '
             'source, targets and questions are for a lesson of one layer')

CASES = [
    # --- syntax ---
    ("syntax-truncated", lesson()[:lesson().index("[0, 1, 0, 1]") + 5] + "@@",
     "unexpected end of file: the array opened with '[' at line 4, column 32 is not closed"),
    ("syntax-trailing-comma-array", lesson(tokens='["The", "cat", "sat"@@,]'),
     "trailing comma before ']': JSON allows no comma after the last element"),
    ("syntax-trailing-comma-object", lesson(weights='{"random": {"seed": 42@@,}}'),
     "trailing comma before '}': JSON allows no comma after the last member"),
    ("syntax-bom", b"@@\xef\xbb\xbf" + lesson().encode(),
     "file starts with a UTF-8 byte order mark; save it as UTF-8 without BOM"),
    ("syntax-utf16", b"@@" + lesson().encode("utf-16"),
     "file starts with a UTF-16 byte order mark; save it as UTF-8 (without BOM)"),
    ("syntax-latin1-token", lesson(tokens='["The", "caf@@\xe9", "sat"]').encode("latin-1"),
     "invalid UTF-8 (byte 0xE9); save the file as UTF-8"),
    ("syntax-utf8-then-bad-byte", lesson(title='"Le chat \u00e9tait l\u00e0"',
                                         tokens='["Le", "chat", "\u00e9t\u00e9@@\udcff"]').encode("utf-8", "surrogateescape"),
     "invalid UTF-8 (byte 0xFF); save the file as UTF-8"),
    ("syntax-deep-nesting", "[" * 1000 + "@@" + "[" * 9000,
     "nesting too deep: more than 1000 levels of '[' and '{'"),
    ("syntax-number-overflow", lesson(embeddings="[[1, 0, 1, 0], [0, @@1e400, 0, 1], [1, 1, 1, 1]]"),
     "number out of range near '1e400' (a double holds at most about 1.8e308)"),
    ("syntax-nan", lesson(embeddings="[[@@NaN, 0, 1, 0], [0, 1, 0, 1], [1, 1, 1, 1]]"),
     "invalid JSON: expected a value near 'NaN' (JSON has no NaN or Infinity; write a number)"),
    ("syntax-infinity", lesson(embeddings="[[1, 0, 1, 0], [0, 1, 0, @@Infinity], [1, 1, 1, 1]]"),
     "invalid JSON: expected a value near 'Infinity' (JSON has no NaN or Infinity; write a number)"),
    ("syntax-minus-infinity", lesson(embeddings="[[1, 0, 1, 0], [0, 1, 0, 1], [@@-Infinity, 1, 1, 1]]"),
     "invalid JSON: expected a value near '-Infinity' (JSON has no NaN or Infinity; write a number)"),
    ("syntax-empty", b"", "file is empty"),
    ("syntax-only-white-space", "  \n\t\n", "file is empty (only white space)"),
    ("syntax-single-quotes", lesson().replace('"title"', "@@'title'"),
     "invalid JSON: keys must be in double quotes, not single quotes"),
    ("syntax-missing-comma", lesson().replace('sat",\n  "tokens"', 'sat"\n  @@"tokens"'),
     "invalid JSON: expected ',' or '}' before the next key (is a comma missing?)"),
    ("syntax-leading-zero", lesson(heads="@@02"), "invalid number near '02': leading zeros are not allowed"),
    ("syntax-python-literal", lesson(notes="@@None"),
     "invalid JSON: expected a value near 'None' (the JSON literals are true, false and null, in lower case)"),
    ("syntax-comment", lesson().replace('  "heads"', '  @@// two heads\n  "heads"'), "invalid JSON: JSON has no comments"),
    ("syntax-nul-byte", lesson(title='"The@@\0 cat sat"'),
     "file contains a NUL byte; a lesson is UTF-8 text (is it UTF-16 or binary?)"),
    ("syntax-tab-in-string", lesson(tokens='["The", "cat@@\tsat"]'),
     "control character U+0009 inside a string (write it as an escape such as \\t)"),
    ("syntax-line-break-in-string", lesson(title='"The cat sat@@\n"'),
     "line break inside a string: is a closing '\"' missing? (write \\n for a new line)"),
    ("syntax-bad-escape", lesson(notes='"saved in C:@@\\Users"'),
     "invalid escape in a string: '\\' followed by 'U' (valid escapes: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)"),
    ("syntax-lone-surrogate", lesson(title='"The cat @@\\ud83d sat"'),
     "invalid \\u escape: \\uD83D must be followed by a low surrogate \\uDC00..\\uDFFF"),
    ("syntax-two-objects", lesson() + "@@{}\n",
     "unexpected '{' after the end of the JSON value (one file holds one lesson object)"),
    ("syntax-unterminated-string", '{\n  "title": "The cat sat@@',
     "unexpected end of file inside the string that starts at line 2, column 12"),

    # --- the top level ---
    ("top-array", "@@[]\n", "expected a lesson object { ... }, got an array"),
    ("top-unknown-key", lesson(_extra=[('@@"head"', "2")]),
     'unknown key "head" (expected $schema, title, notes, language, tokens, sentence, split, embeddings, d_model, '
     'heads, d_k, mask, source, weights, positions, scale, rope, kv_heads, window, targets, train, questions)'),
    ("top-duplicate-key", lesson(_extra=[('@@"heads"', "4")]), 'duplicate key "heads" (first given at line 5, column 3)'),
    ("schema-not-string", lesson(_extra=[("$schema", "@@1")]), "$schema: expected a string, got a number"),
    ("missing-title", "@@" + lesson(title=None), 'missing required key "title"'),
    ("missing-heads", "@@" + lesson(heads=None), 'missing required key "heads"'),
    ("missing-embeddings", "@@" + lesson(embeddings=None), 'missing required key "embeddings"'),
    ("missing-weights", "@@" + lesson(weights=None), 'missing required key "weights"'),
    ("title-not-string", lesson(title="@@42"), "title: expected a string, got a number"),

    # --- rope, kv_heads, window (issue 22) ---
    ("rope-odd-d_k", lesson(d_k="3", _extra=[("rope", "@@true")]),
     "rope: needs an even d_k (RoPE turns the numbers of each head two by two), but d_k is 3"),
    ("rope-not-object", lesson(_extra=[("rope", '@@"yes"')]),
     'rope: expected true, false or {"base": 10000, "pairs": "halves" or "interleaved"}, got a string'),
    ("rope-unknown-key", lesson(_extra=[("rope", '{@@"theta": 10000}')]),
     'rope: unknown key "theta" (expected base, pairs, scaling)'),
    ("rope-scaling-type", lesson(_extra=[("rope", '{"scaling": {"type": @@"yarn", "factor": 4}}')]),
     'rope.scaling.type: expected "linear" or "llama3"'),
    ("rope-scaling-bands", lesson(_extra=[("rope", '{"scaling": {"type": "llama3", "factor": 8, "low_freq_factor": 4, '
                                                   '"high_freq_factor": @@1, "original_max_position_embeddings": 64}}')]),
     "rope.scaling.high_freq_factor: must be greater than low_freq_factor"),
    ("rope-base-zero", lesson(_extra=[("rope", '{"base": @@0}')]),
     "rope.base: must be a positive number (theta_j = 1 / base^(2j/d_k)), got 0"),
    ("rope-base-negative", lesson(_extra=[("rope", '{"base": @@-10000, "pairs": "halves"}')]),
     "rope.base: must be a positive number (theta_j = 1 / base^(2j/d_k)), got -10000"),
    ("rope-base-string", lesson(_extra=[("rope", '{"base": @@"10000"}')]),
     "rope.base: expected a positive number (theta_j = 1 / base^(2j/d_k)), got a string"),
    ("rope-base-huge", lesson(_extra=[("rope", '{"base": @@1e400}')]),
     "number out of range near '1e400' (a double holds at most about 1.8e308)"),
    ("rope-pairs-unknown", lesson(_extra=[("rope", '{"pairs": @@"adjacent"}')]),
     'rope.pairs: expected "halves" (pairs j, j + d_k/2) or "interleaved" (pairs 2j, 2j + 1), got "adjacent"'),
    ("kv_heads-not-dividing", lesson(heads="4", d_k="1", _extra=[("kv_heads", "@@3")]),
     "kv_heads: 3 does not divide heads (4): each K/V head serves the same number of query heads"),
    ("kv_heads-above-heads", lesson(_extra=[("kv_heads", "@@4")]),
     "kv_heads: must be at most heads (2), got 4: each K/V head serves one or more query heads"),
    ("kv_heads-zero", lesson(_extra=[("kv_heads", "@@0")]), "kv_heads: must be at least 1, got 0"),
    ("kv_heads-fraction", lesson(_extra=[("kv_heads", "@@1.5")]), "kv_heads: must be a whole number, got 1.5"),
    ("kv_heads-W_K-too-many", small(_extra=[("kv_heads", "1")], weights='{\n    "W_Q": [[[1], [0]], [[0], [1]]],\n'
                                    '    "W_K": @@[[[1], [0]], [[0], [1]]],\n    "W_V": [[[1], [0]]],\n'
                                    '    "W_O": [[1, 0], [0, 1]]\n  }'),
     "weights.W_K: expected 1 matrix (kv_heads), got 2"),
    ("kv_heads-W_V-too-few", small(heads="2", _extra=[("kv_heads", "2")], weights='{\n    "W_Q": [[[1], [0]], [[0], [1]]],\n'
                                   '    "W_K": [[[1], [0]], [[0], [1]]],\n    "W_V": @@[[[1], [0]]],\n'
                                   '    "W_O": [[1, 0], [0, 1]]\n  }'),
     "weights.W_V: expected 2 matrices (kv_heads), got 1"),
    ("kv_heads-b_K-count", small(_extra=[("kv_heads", "1")], weights='{\n    "W_Q": [[[1], [0]], [[0], [1]]],\n'
                                 '    "W_K": [[[1], [0]]],\n    "W_V": [[[1], [0]]],\n'
                                 '    "W_O": [[1, 0], [0, 1]],\n    "b_K": @@[[0], [0]]\n  }'),
     "weights.b_K: expected 1 bias vector (kv_heads), got 2"),
    ("kv_heads-pytorch", small(_extra=[("kv_heads", "1")], weights=PYTORCH.replace('{"pytorch": {', '{"pytorch": @@{', 1)),
     'weights.pytorch: torch.nn.MultiheadAttention has one K/V head per head: "kv_heads" (1) must be heads (2) or '
     'left out with PyTorch weights; give grouped-query weights as W_Q, W_K, W_V, W_O'),
    ("window-without-causal", lesson(_extra=[("window", "@@2")]),
     'window: a sliding window needs "mask": "causal" (query i sees the keys j with i - 2 < j <= i)'),
    ("window-zero", lesson(mask='"causal"', _extra=[("window", "@@0")]), "window: must be at least 1, got 0"),
    ("window-string", lesson(mask='"causal"', _extra=[("window", '@@"2"')]),
     "window: expected a whole number, got a string"),

    # --- tokens ---
    ("tokens-and-sentence", lesson(_extra=[('@@"sentence"', '"The cat sat"')]),
     '"tokens" and "sentence" both given; use one of them'),
    ("tokens-missing", "@@" + lesson(tokens=None), 'missing required key "tokens" (or "sentence")'),
    ("tokens-empty-array", lesson(tokens="@@[]"), "tokens: expected at least one token, got an empty array"),
    ("tokens-empty-string", lesson(tokens='["The", @@"", "sat"]'),
     "tokens[1]: empty token: every token needs at least one character"),
    ("tokens-number", lesson(tokens='["The", "cat", @@7]'), "tokens[2]: expected a string, got a number"),
    ("tokens-not-array", lesson(tokens='@@"The cat sat"'), "tokens: expected an array of strings, got a string"),
    ("sentence-blank", lesson(tokens=None, sentence='@@" \\t\\n "'),
     "sentence: no words: the sentence is empty or only white space"),
    ("sentence-513-words", lesson(tokens=None, sentence='@@"' + " ".join("w%d" % i for i in range(513)) + '"',
                                  embeddings='{"random": {"seed": 1}}', d_model="4"),
     "sentence: too many tokens: the sentence has 513 words (the limit is 512)"),
    # --- the class's language ---
    ("language-not-code", lesson(_extra=[("language", '@@"Spanish!"')]),
     'language: expected a language code such as "en", "es", "fr" or "zh", got "Spanish!"'),
    ("language-number", lesson(_extra=[("language", "@@34")]), "language: expected a string, got a number"),
    ("language-empty-subtag", lesson(_extra=[("language", '@@"zh-"')]),
     'language: expected a language code such as "en", "es", "fr" or "zh", got "zh-"'),

    # --- how a sentence is split ---
    ("split-unknown", lesson(tokens=None, sentence='"\u732b\u304c\u5ea7\u3063\u305f"', split='@@"letters"'),
     'split: expected "words" (split on white space) or "characters" (for a sentence written without spaces), '
     'got "letters"'),
    ("split-not-string", lesson(tokens=None, sentence='"The cat sat"', split="@@true"),
     "split: expected a string, got true"),
    ("split-with-tokens", lesson(_extra=[('@@"split"', '"characters"')]),
     '"split" says how a "sentence" becomes tokens, and this lesson gives "tokens"; remove "split"'),
    ("sentence-blank-characters", lesson(tokens=None, sentence='@@" \u3000 "', split='"characters"'),
     "sentence: no characters: the sentence is empty or only white space"),
    ("sentence-513-characters", lesson(tokens=None, sentence='@@"' + "\u732b" * 513 + '"', split='"characters"',
                                       embeddings='{"random": {"seed": 1}}', d_model="4"),
     "sentence: too many tokens: the sentence has 513 characters (the limit is 512)"),
    ("source-split-unknown", lesson(source='{"sentence": "le chat", "split": @@"bytes", '
                                           '"embeddings": [[1, 0, 0, 0], [0, 1, 0, 0]]}'),
     'source.split: expected "words" (split on white space) or "characters" (for a sentence written without '
     'spaces), got "bytes"'),
    ("tokens-513", lesson(tokens="@@[" + ", ".join('"t%d"' % i for i in range(513)) + "]",
                          embeddings='{"random": {"seed": 1}}', d_model="4"),
     "tokens: too many tokens: 513 (the limit is 512)"),

    # --- sizes ---
    ("heads-zero", lesson(heads="@@0"), "heads: must be at least 1, got 0"),
    ("heads-negative", lesson(heads="@@-2"), "heads: must be at least 1, got -2"),
    ("heads-fractional", lesson(heads="@@1.5"), "heads: must be a whole number, got 1.5"),
    ("heads-65", lesson(heads="@@65", d_k="1"), "heads: must be at most 64, got 65"),
    ("heads-zero-crlf", lesson(heads="@@0").replace("\n", "\r\n"), "heads: must be at least 1, got 0"),
    ("heads-string", lesson(heads='@@"2"'), "heads: expected a whole number, got a string"),
    ("heads-not-dividing", lesson(heads="@@3"), "heads: 3 does not divide d_model (4); change heads or give d_k"),
    ("d_model-disagrees", lesson(d_model="@@8"), "d_model: 8 disagrees with the embeddings, whose rows have 4 numbers"),
    ("d_model-5000-random", lesson(embeddings='{"random": {"seed": 7}}', d_model="@@5000"),
     "d_model: must be at most 4096, got 5000"),
    ("d_model-missing-random", "@@" + lesson(embeddings='{"random": {"seed": 7}}'),
     'missing required key "d_model" (random embeddings need it)'),
    ("d_k-zero", lesson(d_k="@@0"), "d_k: must be at least 1, got 0"),
    ("weights-too-big", "@@" + lesson(embeddings='{"random": {"seed": 7}}', d_model="4096", heads="64", d_k="4096"),
     "the weights would hold 4294967296 numbers (4 * heads * d_k * d_model = 4 * 64 * 4096 * 4096); the limit is 8388608"),
    ("weights-just-over", "@@" + lesson(embeddings='{"random": {"seed": 7}}', d_model="1024", heads="16", d_k="129"),
     "the weights would hold 8454144 numbers (4 * heads * d_k * d_model = 4 * 16 * 129 * 1024); the limit is 8388608"),
    ("trace-too-big", lesson(tokens=None, sentence='"' + " ".join("w%d" % i for i in range(512)) + '"',
                             embeddings='{"random": {"seed": 7}}', d_model="64", heads="@@16", d_k="64"),
     "heads: the trace would hold 15237120 numbers (heads * (3*n*m + 2*(n + m)*d_k) + n*heads*d_k + n*d_model "
     "with n = 512, m = 512, heads = 16, d_k = 64, d_model = 64); the limit is 12582912: use fewer tokens or heads, "
     "or a smaller d_k"),
    ("trace-too-big-cross", lesson(embeddings='{"random": {"seed": 7}}', d_model="64", heads="@@64", d_k="192",
                                   source='{"sentence": "' + " ".join("s%d" % i for i in range(512))
                                   + '", "embeddings": {"random": {"seed": 8}}}'),
     "heads: the trace would hold %d numbers (heads * (3*n*m + 2*(n + m)*d_k) + n*heads*d_k + n*d_model "
     "with n = 3, m = 512, heads = 64, d_k = 192, d_model = 64)" % (64 * (3 * 3 * 512 + 2 * (3 + 512) * 192) + 3 * 64 * 192 + 3 * 64) + "; the limit is 12582912: use fewer tokens or heads, "
     "or a smaller d_k"),

    # With RoPE the trace keeps Q_rot, K_rot and the board's shifted Q, K and scores too (issue 22): 12 heads of 64
    # over 512 tokens fit without it (11436032 numbers), not with it.
    ("trace-too-big-rope", lesson(tokens=None, sentence='"' + " ".join("w%d" % i for i in range(512)) + '"',
                                  embeddings='{"random": {"seed": 7}}', d_model="64", heads="@@12", d_k="64", rope="true"),
     "heads: the trace would hold %d numbers (heads * (4*n*m + 4*(n + m)*d_k) + n*heads*d_k + n*d_model "
     "with n = 512, m = 512, heads = 12, d_k = 64, d_model = 64; with RoPE Q and K are kept rotated and shifted too)"
     % (12 * (4 * 512 * 512 + 4 * 1024 * 64) + 512 * 12 * 64 + 512 * 64) + "; the limit is 12582912: use fewer tokens "
     "or heads, or a smaller d_k"),

    # --- embeddings ---
    ("embeddings-ragged", lesson(embeddings="[[1, 0, 1, 0], @@[0, 1, 0], [1, 1, 1, 1]]"),
     "embeddings[1]: expected 4 numbers (d_model), got 3"),
    ("embeddings-empty", lesson(embeddings="@@[]"), "embeddings: expected 3 rows (one per token), got 0"),
    ("embeddings-empty-rows", lesson(embeddings="[@@[], [], []]"),
     "embeddings[0]: expected at least one number, got an empty row"),
    ("embeddings-too-few-rows", lesson(embeddings="@@[[1, 0, 1, 0], [0, 1, 0, 1]]"),
     "embeddings: expected 3 rows (one per token), got 2"),
    ("embeddings-string-number", lesson(embeddings='[[1, 0, 1, 0], [0, @@"1", 0, 1], [1, 1, 1, 1]]'),
     "embeddings[1][1]: expected a number, got a string"),
    ("embeddings-null", lesson(embeddings="@@null"),
     'embeddings: expected an array of rows (one per token) or {"random": {...}}, got null'),
    ("embeddings-std-negative", lesson(embeddings='{"random": {"seed": 1, "std": @@-1}}', d_model="4"),
     "embeddings.random.std: must not be negative, got -1"),
    ("embeddings-random-unknown-key", lesson(embeddings='{"random": {@@"sede": 1}}', d_model="4"),
     'embeddings.random: unknown key "sede" (expected seed, std)'),

    # --- mask and source ---
    ("mask-diagonal", lesson(mask='@@"diagonal"'), 'mask: expected "none" or "causal", got "diagonal"'),
    ("mask-causal-with-source", lesson(mask='@@"causal"', source=SOURCE),
     'mask: "causal" masking is for self-attention only; it cannot be used with "source"'),
    ("source-width", lesson(source='{"tokens": ["Le", "chat"], "embeddings": [@@[1, 0, 0], [0, 1, 0]]}'),
     "source.embeddings[0]: expected 4 numbers (d_model), got 3"),
    ("source-rows", lesson(source='{"sentence": "le chat", "embeddings": @@[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]}'),
     "source.embeddings: expected 2 rows (one per source token), got 3"),
    ("source-missing-embeddings", lesson(source='@@{"tokens": ["Le", "chat"]}'),
     'source: missing required key "embeddings"'),
    ("source-unknown-key", lesson(source='{"tokens": ["Le", "chat"], @@"embedding": [[1, 0, 0, 0], [0, 1, 0, 0]]}'),
     'source: unknown key "embedding" (expected tokens, sentence, split, embeddings, positions)'),

    # --- positions and scale (issue 14) ---
    ("positions-unknown-string", lesson(positions='@@"learned"'),
     'positions: expected "none", "sinusoidal" or 3 rows of 4 numbers (one per token), got "learned"'),
    ("positions-number", lesson(positions="@@1"),
     'positions: expected "none", "sinusoidal" or 3 rows of 4 numbers (one per token), got a number'),
    ("positions-too-few-rows", lesson(positions="@@[[0, 0, 0, 0], [1, 1, 1, 1]]"),
     "positions: expected 3 rows (one per token), got 2"),
    ("positions-row-width", lesson(positions="[[0, 0, 0, 0], @@[1, 1, 1], [2, 2, 2, 2]]"),
     "positions[1]: expected 4 numbers (d_model), got 3"),
    ("positions-string-number", lesson(positions='[[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, @@"2", 2]]'),
     "positions[2][2]: expected a number, got a string"),
    ("source-positions-rows", lesson(positions="[[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2]]",
                                     source='{"tokens": ["Le", "chat"], "embeddings": [[1, 0, 0, 0], [0, 1, 0, 0]], '
                                            '"positions": @@[[0, 0, 0, 0]]}'),
     "source.positions: expected 2 rows (one per source token), got 1"),
    ("source-positions-with-sinusoidal", lesson(positions='"sinusoidal"',
                                                source='{"tokens": ["Le", "chat"], "embeddings": [[1, 0, 0, 0], '
                                                       '[0, 1, 0, 0]], "positions": @@[[0, 0, 0, 0], [1, 1, 1, 1]]}'),
     'source.positions: not with "positions": "sinusoidal", which gives the source its own sinusoids'),
    ("source-positions-alone", lesson(source='{"tokens": ["Le", "chat"], "embeddings": [[1, 0, 0, 0], [0, 1, 0, 0]], '
                                             '"positions": @@[[0, 0, 0, 0], [1, 1, 1, 1]]}'),
     "source.positions: the source's positions go with an explicit \"positions\" matrix for the queries"),
    ("scale-zero", lesson(scale="@@0"),
     "scale: must be a positive number (it multiplies the scores instead of 1/\u221ad_k), got 0"),
    ("scale-negative", lesson(scale="@@-0.5"),
     "scale: must be a positive number (it multiplies the scores instead of 1/\u221ad_k), got -0.5"),
    # --- issue 15: "targets" and "train" ---
    ("targets-too-few-rows", lesson(targets="@@[[0, 0, 0, 0], [1, 1, 1, 1]]"),
     "targets: expected 3 rows (one per token), got 2"),
    ("targets-row-width", lesson(targets="[[0, 0, 0, 0], @@[1, 1, 1], [2, 2, 2, 2]]"),
     "targets[1]: expected 4 numbers (d_model), got 3"),
    ("train-not-object", lesson(train='@@"previous-token"'),
     'train: expected an object {"task": "previous-token", "steps": ...}, got a string'),
    ("train-missing-task", lesson(train='@@{"steps": 100}'),
     'train: missing required key "task" (previous-token, first-token or previous-and-first)'),
    ("train-unknown-task", lesson(train='{"task": @@"induction"}'),
     'train.task: expected "previous-token", "first-token" or "previous-and-first", got "induction"'),
    ("train-unknown-key", lesson(train='{"task": "first-token", @@"epochs": 3}'),
     'train: unknown key "epochs" (expected task, sequences, seed, steps, learning_rate)'),
    ("train-steps-zero", lesson(train='{"task": "first-token", "steps": @@0}'), "train.steps: must be at least 1, got 0"),
    ("train-sequences-fraction", lesson(train='{"task": "first-token", "sequences": @@2.5}'),
     "train.sequences: must be a whole number, got 2.5"),
    ("train-learning-rate-zero", lesson(train='{"task": "first-token", "learning_rate": @@0}'),
     "train.learning_rate: must be a number above 0 and at most 1, got 0"),
    ("train-seed-negative", lesson(train='{"task": "first-token", "seed": @@-1}'), "train.seed: must not be negative, got -1"),
    ("train-cross", lesson(source=SOURCE, train='@@{"task": "first-token"}'),
     'train: training is for self-attention only; this lesson has a "source"'),
    ("train-too-many-targets",
     lesson(tokens='["a", "b", "c", "d"]', d_model="1024", d_k="1", heads="1", embeddings='{"random": {"seed": 1}}',
            weights='{"random": {"seed": 2}}', train='@@{"task": "first-token", "sequences": 4096}'),
     "train: the training targets would hold 16777216 numbers (sequences * n * d_model = 4096 * 4 * 1024); the limit "
     "is 12582912: use fewer sequences"),
    ("train-token-two-embeddings", lesson(tokens='["the", "cat", "the"]', train='@@{"task": "previous-token"}'),
     'train: the token "the" has two different embeddings (tokens 0 and 2); training draws its sequences from the '
     "lesson's distinct tokens, so each needs one embedding"),
    ("scale-string", lesson(scale='@@"0.5"'), "scale: expected a positive number (it multiplies the scores), got a string"),
    ("scale-null", lesson(scale="@@null"), "scale: expected a positive number (it multiplies the scores), got null"),
    ("source-empty-tokens", lesson(source='{"tokens": @@[], "embeddings": []}'),
     "source.tokens: expected at least one token, got an empty array"),

    # --- seeds ---
    ("seed-negative", lesson(weights='{"random": {"seed": @@-1}}'), "weights.random.seed: must not be negative, got -1"),
    ("seed-fractional", lesson(weights='{"random": {"seed": @@4.5}}'),
     "weights.random.seed: must be a whole number, got 4.5"),
    ("seed-too-large", lesson(weights='{"random": {"seed": @@9007199254740992}}'),
     "weights.random.seed: must be at most 9007199254740991 (2^53 - 1), got 9007199254740992"),
    ("seed-1e20", lesson(embeddings='{"random": {"seed": @@1e20}}', d_model="4"),
     "embeddings.random.seed: must be at most 9007199254740991 (2^53 - 1), got 1e+20"),
    ("seed-string", lesson(weights='{"random": {"seed": @@"42"}}'),
     "weights.random.seed: expected a whole number from 0 to 2^53 - 1, got a string"),
    ("seed-missing", lesson(weights='{"random": @@{"qkv_std": 1.0}}'), 'weights.random: missing required key "seed"'),

    # --- weights: forms ---
    ("weights-not-object", lesson(weights="@@[]"),
     'weights: expected an object with "random", "pytorch" or W_Q, W_K, W_V, W_O, got an array'),
    ("weights-empty", lesson(weights="@@{}"),
     'weights: expected one of "random", "pytorch", or explicit W_Q, W_K, W_V, W_O, got an empty object'),
    ("weights-random-and-explicit", lesson(weights='{"random": {"seed": 42}, @@"W_Q": []}'),
     'weights: two weight forms at once: "random" and explicit "W_Q"; give exactly one'),
    ("weights-random-and-pytorch", lesson(weights='{"random": {"seed": 42}, @@"pytorch": {}}'),
     'weights: two weight forms at once: "random" and "pytorch"; give exactly one'),
    ("weights-unknown-key", lesson(weights='{@@"Random": {"seed": 42}}'),
     'weights: unknown key "Random" (expected random, pytorch, or W_Q, W_K, W_V, W_O, b_Q, b_K, b_V, b_O)'),
    ("weights-qkv-std-negative", lesson(weights='{"random": {"seed": 42, "qkv_std": @@-0.5}}'),
     "weights.random.qkv_std: must not be negative, got -0.5"),

    # --- weights: explicit shapes ---
    ("explicit-missing-W_O", small(weights='@@{"W_Q": [[[1], [0]], [[0], [1]]], "W_K": [[[1], [0]], [[0], [1]]], '
                                           '"W_V": [[[1], [0]], [[0], [1]]]}'),
     'weights: missing required key "W_O" (explicit weights need W_Q, W_K, W_V and W_O)'),
    ("explicit-W_Q-rows", small(weights='{"W_Q": [[[1], [0]], @@[[0]]], "W_K": [[[1], [0]], [[0], [1]]], '
                                        '"W_V": [[[1], [0]], [[0], [1]]], "W_O": [[1, 0], [0, 1]]}'),
     "weights.W_Q[1]: expected 2 rows (d_model), got 1"),
    ("explicit-W_Q-count", small(weights='{"W_Q": @@[[[1], [0]]], "W_K": [[[1], [0]], [[0], [1]]], '
                                         '"W_V": [[[1], [0]], [[0], [1]]], "W_O": [[1, 0], [0, 1]]}'),
     "weights.W_Q: expected 2 matrices (heads), got 1"),
    ("explicit-W_K-cols", small(weights='{"W_Q": [[[1], [0]], [[0], [1]]], "W_K": [[[1], [0]], [[0], @@[1, 2]]], '
                                        '"W_V": [[[1], [0]], [[0], [1]]], "W_O": [[1, 0], [0, 1]]}'),
     "weights.W_K[1][1]: expected 1 number (d_k), got 2"),
    ("explicit-W_V-string", small(weights='{"W_Q": [[[1], [0]], [[0], [1]]], "W_K": [[[1], [0]], [[0], [1]]], '
                                          '"W_V": [[[1], [0]], [[0], [@@"one"]]], "W_O": [[1, 0], [0, 1]]}'),
     "weights.W_V[1][1][0]: expected a number, got a string"),
    ("explicit-W_O-rows", small(weights='{"W_Q": [[[1], [0]], [[0], [1]]], "W_K": [[[1], [0]], [[0], [1]]], '
                                        '"W_V": [[[1], [0]], [[0], [1]]], "W_O": @@[[1, 0], [0, 1], [1, 1]]}'),
     "weights.W_O: expected 2 rows (heads * d_k), got 3"),
    ("explicit-W_O-cols", small(weights='{"W_Q": [[[1], [0]], [[0], [1]]], "W_K": [[[1], [0]], [[0], [1]]], '
                                        '"W_V": [[[1], [0]], [[0], [1]]], "W_O": [[1, 0], @@[0]]}'),
     "weights.W_O[1]: expected 2 numbers (d_model), got 1"),
    ("explicit-b_Q-length", small(weights='{"W_Q": [[[1], [0]], [[0], [1]]], "W_K": [[[1], [0]], [[0], [1]]], '
                                          '"W_V": [[[1], [0]], [[0], [1]]], "W_O": [[1, 0], [0, 1]], '
                                          '"b_Q": [[0], @@[0, 1]]}'),
     "weights.b_Q[1]: expected 1 number (d_k), got 2"),
    ("explicit-b_V-count", small(weights='{"W_Q": [[[1], [0]], [[0], [1]]], "W_K": [[[1], [0]], [[0], [1]]], '
                                         '"W_V": [[[1], [0]], [[0], [1]]], "W_O": [[1, 0], [0, 1]], "b_V": @@[[0]]}'),
     "weights.b_V: expected 2 bias vectors (heads), got 1"),
    ("explicit-b_O-length", small(weights='{"W_Q": [[[1], [0]], [[0], [1]]], "W_K": [[[1], [0]], [[0], [1]]], '
                                          '"W_V": [[[1], [0]], [[0], [1]]], "W_O": [[1, 0], [0, 1]], "b_O": @@[0]}'),
     "weights.b_O: expected 2 numbers (d_model), got 1"),

    # --- weights: the pytorch form ---
    ("pytorch-in-proj-rows", small(weights=PYTORCH.replace("[[1, 0], [0, 1], [1, 0], [0, 1], [1, 0], [0, 1]]",
                                                           "@@[[1, 0], [0, 1], [1, 0], [0, 1], [1, 0]]")),
     "weights.pytorch.in_proj_weight: expected 6 rows (3 * d_model), got 5"),
    ("pytorch-in-proj-cols", small(weights=PYTORCH.replace("[[1, 0], [0, 1], [1, 0], [0, 1], [1, 0], [0, 1]]",
                                                           "[[1, 0], [0, 1], [1, 0], @@[0, 1, 0], [1, 0], [0, 1]]")),
     "weights.pytorch.in_proj_weight[3]: expected 2 numbers (d_model), got 3"),
    ("pytorch-in-proj-bias", small(weights=PYTORCH.replace("[0, 0, 0, 0, 0, 0]", "@@[0, 0, 0, 0]")),
     "weights.pytorch.in_proj_bias: expected 6 numbers (3 * d_model), got 4"),
    ("pytorch-out-proj-shape", small(weights=PYTORCH.replace('"out_proj_weight": [[1, 0], [0, 1]]',
                                                             '"out_proj_weight": [[1, 0], @@[0, 1, 2]]')),
     "weights.pytorch.out_proj_weight[1]: expected 2 numbers (d_model), got 3"),
    ("pytorch-out-proj-rows", small(weights=PYTORCH.replace('"out_proj_weight": [[1, 0], [0, 1]]',
                                                            '"out_proj_weight": @@[[1, 0]]')),
     "weights.pytorch.out_proj_weight: expected 2 rows (d_model), got 1"),
    ("pytorch-heads-times-d_k", small(d_k="3", weights=PYTORCH.replace('{"pytorch": {', '{"pytorch": @@{')),
     "weights.pytorch: the pytorch form needs heads * d_k == d_model, but 2 * 3 = 6 and d_model is 2"),
    ("pytorch-unknown-key", small(weights=PYTORCH.replace('"out_proj_bias"', '@@"out_proj_biases"')),
     'weights.pytorch: unknown key "out_proj_biases" (expected in_proj_weight, in_proj_bias, out_proj_weight, '
     'out_proj_bias, num_heads)'),
    ("pytorch-missing-out-proj", small(weights='{"pytorch": @@{"in_proj_weight": [[1, 0], [0, 1], [1, 0], [0, 1], '
                                               '[1, 0], [0, 1]]}}'),
     'weights.pytorch: missing required key "out_proj_weight"'),
    ("pytorch-num-heads", small(weights=PYTORCH.replace('"out_proj_bias": [0, 0]',
                                                        '"out_proj_bias": [0, 0],\n    "num_heads": @@1')),
     'weights.pytorch.num_heads: the layer has num_heads 1 but the lesson\'s "heads" is 2; heads must be the '
     "layer's num_heads, or the heads split in_proj_weight differently and attend otherwise"),
    # --- questions (their form; a wrong stated answer is --check's, tested in test_cli.sh) ---
    ("questions-not-array", lesson(questions='@@{"stage": "softmax"}'), "questions: expected an array of questions, got an object"),
    ("questions-missing-text", lesson(questions='[@@{"stage": "softmax", "answer": {"kind": "cell", "cell": [1, 2]}}]'),
     'questions[0]: missing required key "text"'),
    ("questions-empty-text", lesson(questions='[{"stage": "softmax", "text": @@"", "answer": {"kind": "cell", "cell": [1, 2]}}]'),
     "questions[0].text: empty question: write what the class should predict"),
    ("questions-head-out-of-range",
     lesson(questions='[{"stage": "softmax", "head": @@2, "text": "Q?", "answer": {"kind": "cell", "cell": [1, 2]}}]'),
     "questions[0].head: the lesson has 2 heads (0 to 1), got 2"),
    ("questions-kind-unknown",
     lesson(questions='[{"stage": "softmax", "text": "Q?", "answer": {"kind": @@"argmax", "cell": [1, 2]}}]'),
     'questions[0].answer.kind: expected "cell", "value" or "choice", got "argmax"'),
    ("questions-cell-one-number",
     lesson(questions='[{"stage": "softmax", "text": "Q?", "answer": {"kind": "cell", "cell": @@[1]}}]'),
     "questions[0].answer.cell: expected [row, column] (two whole numbers from 0), got an array of another length"),
    ("questions-cell-negative",
     lesson(questions='[{"stage": "softmax", "text": "Q?", "answer": {"kind": "cell", "cell": [1, @@-2]}}]'),
     "questions[0].answer.cell[1]: must be at least 0, got -2"),
    ("questions-value-no-tolerance",
     lesson(questions='[{"stage": "softmax", "text": "Q?", "answer": @@{"kind": "value", "cell": [1, 2], "value": 0.4}}]'),
     'questions[0].answer: missing required key "tolerance"'),
    ("questions-tolerance-zero",
     lesson(questions='[{"stage": "softmax", "text": "Q?", "answer": {"kind": "value", "cell": [1, 2], "value": 0.4, "tolerance": @@0}}]'),
     "questions[0].answer.tolerance: must be greater than 0 (a typed number is never exact), got 0"),
    ("questions-choice-one",
     lesson(questions='[{"stage": "softmax", "text": "Q?", "answer": {"kind": "choice", "cell": [1, 2], "choices": @@[0.4], "correct": 0}}]'),
     "questions[0].answer.choices: expected 2 to 9 choices (keys 1 to 9 pick them), got 1"),
    ("questions-correct-out-of-range",
     lesson(questions='[{"stage": "softmax", "text": "Q?", "answer": {"kind": "choice", "cell": [1, 2], "choices": [0.1, 0.4], "correct": @@2}}]'),
     "questions[0].answer.correct: must be at most 1, got 2"),
    ("questions-value-key-on-cell",
     lesson(questions='[{"stage": "softmax", "text": "Q?", "answer": {"kind": "cell", "cell": [1, 2], @@"tolerance": 0.1}}]'),
     'questions[0].answer: unknown key "tolerance" (expected kind, matrix, cell, among, pick)'),
    ("questions-among-diagonal",
     lesson(questions='[{"stage": "softmax", "text": "Q?", "answer": {"kind": "cell", "cell": [1, 2], "among": @@"diagonal"}}]'),
     'questions[0].answer.among: expected "row", "column" or "matrix", got "diagonal"'),
    ("pytorch-num-heads-type", small(weights=PYTORCH.replace('"out_proj_bias": [0, 0]',
                                                             '"out_proj_bias": [0, 0],\n    "num_heads": @@"2"')),
     "weights.pytorch.num_heads: expected a whole number, got a string"),
    ("layers-rope", layers("rope", "true"), '"rope" ' + ONE_LAYER),
    ("layers-kv_heads", layers("kv_heads", "1"), '"kv_heads" ' + ONE_LAYER),
    ("layers-source", layers("source", SOURCE), '"source" ' + ONE_LAYER),
    ("layers-targets", layers("targets", "[[0, 1], [1, 0], [0, 0]]"), '"targets" ' + ONE_LAYER),
    ("layers-questions", layers("questions", '[{"stage": "softmax", "text": "Q?", "answer": {"kind": "cell", "cell": [1, 1]}}]'),
     '"questions" ' + ONE_LAYER),
]


def line_col(data, offset):
    before = data[:offset]
    line = before.count(b"\n") + 1
    start = before.rfind(b"\n") + 1
    col = len(before[start:].decode("utf-8")) + 1  # code points
    return line, col


def main():
    for name in os.listdir(HERE):
        if name.endswith(".json") or name.endswith(".expected"):
            os.remove(os.path.join(HERE, name))
    names = set()
    for name, text, message in CASES:
        assert name not in names, name
        names.add(name)
        data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape")
        assert data.count(MARK) <= 1, name
        where = ""
        if MARK in data:
            offset = data.index(MARK)
            data = data.replace(MARK, b"")
            where = ":%d:%d" % line_col(data, offset)
        assert len(data) < 100_000, name
        with open(os.path.join(HERE, name + ".json"), "wb") as f:
            f.write(data)
        with open(os.path.join(HERE, name + ".expected"), "w", encoding="utf-8") as f:
            f.write("bad/%s.json%s: error: %s\n" % (name, where, message))
    print("%d bad lessons written to %s" % (len(CASES), HERE))


if __name__ == "__main__":
    main()
