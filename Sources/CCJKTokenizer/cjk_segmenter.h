// The segmenter behind the `cjk` tokenizer: UTF-8 in, tokens out, one at a time.
//
// Runs of CJK characters (ideographs, kana, hangul) become overlapping bigrams — 泡温泉 gives
// 泡温, 温泉 at consecutive positions — and a run of one character its unigram. Other letters
// and digits form words, case-folded (ASCII, full-width forms, Latin, Greek, Cyrillic,
// Armenian) and split where letters meet digits (iPhone6 gives iphone, 6). Everything else —
// punctuation, symbols, spaces, and bytes that are not valid UTF-8 — separates tokens.
#ifndef CIPHERSTORE_CJK_SEGMENTER_H
#define CIPHERSTORE_CJK_SEGMENTER_H

/// How CJK runs are emitted; words are the same in every mode.
enum CJKMode {
    /// FTS3/FTS4 (documents and queries alike): bigrams only. The spans of a run's bigrams tile
    /// it (each covers its first character, the last one both), because FTS3's snippet() and
    /// its query parser assume tokens that do not overlap.
    CJK_MODE_TILED = 0,
    /// FTS5 documents: at each character's position its bigram with the next character, and
    /// colocated with it the character's unigram, so that one-character queries match too.
    CJK_MODE_DOCUMENT = 1,
    /// FTS5 queries: bigrams, the unigram of a one-character run, and after a longer run the
    /// unigram of its last character when more tokens follow, so that the next token lands
    /// on the position it has in documents.
    CJK_MODE_QUERY = 2,
};

/// What a character is to the segmenter.
enum CJKClass { CJK_SEPARATOR = 0, CJK_LETTER = 1, CJK_DIGIT = 2, CJK_IDEOGRAPH = 3 };

typedef struct CJKChar {
    int start;
    int end;
} CJKChar;

typedef struct CJKToken {
    const char *text;
    int length;
    /// The token's byte range in the input.
    int start;
    int end;
    /// Counts from 0 for each token that is not colocated.
    int position;
    /// Whether the token shares the previous token's position (CJK_MODE_DOCUMENT).
    int colocated;
} CJKToken;

typedef struct CJKSegmenter {
    const unsigned char *text;
    int length;
    int mode;
    /// Where scanning resumes when no run is open.
    int offset;
    /// The position of the next token that is not colocated.
    int position;
    /// Whether a CJK run is open: `current` is its character whose bigram with the next one
    /// has not been emitted yet.
    int inRun;
    CJKChar current;
    /// CJK_MODE_DOCUMENT: the unigram still to emit, colocated with the bigram just emitted.
    int hasPendingUnigram;
    CJKChar pendingUnigram;
    /// Folded words are written here; grown with sqlite3_realloc64, freed by finish.
    char *buffer;
    int capacity;
} CJKSegmenter;

void cjk_segmenter_init(CJKSegmenter *segmenter, const char *text, int length, int mode);

/// The next token: SQLITE_OK, SQLITE_DONE at the end, or SQLITE_NOMEM. The token's text stays
/// valid until the next call or finish.
int cjk_segmenter_next(CJKSegmenter *segmenter, CJKToken *token);

/// Frees what the segmenter allocated.
void cjk_segmenter_finish(CJKSegmenter *segmenter);

/// Decodes the character at `bytes` (`available` > 0 bytes readable): returns how many bytes
/// it takes, never more than `available`, and sets `*code`. Invalid or truncated UTF-8, an
/// overlong form or a surrogate takes one byte and decodes as U+FFFD.
int cjk_decode(const unsigned char *bytes, int available, unsigned *code);

/// The class of a code point.
int cjk_class(unsigned code);

/// The code point lower-cased (simple case folding of ASCII, Latin, Greek, Cyrillic and
/// Armenian), full-width ASCII letters and digits as ASCII; other code points unchanged.
unsigned cjk_fold(unsigned code);

#endif
