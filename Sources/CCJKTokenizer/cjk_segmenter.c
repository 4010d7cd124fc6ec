#include "cjk_segmenter.h"

#include <sqlcipher/sqlite3.h>
#include <string.h>

void cjk_segmenter_init(CJKSegmenter *segmenter, const char *text, int length, int mode) {
    memset(segmenter, 0, sizeof *segmenter);
    segmenter->text = (const unsigned char *)text;
    segmenter->length = text ? length : 0;
    segmenter->mode = mode;
}

void cjk_segmenter_finish(CJKSegmenter *segmenter) {
    sqlite3_free(segmenter->buffer);
    segmenter->buffer = 0;
    segmenter->capacity = 0;
}

/// The character at `offset`, when there is one and it is CJK.
static int readIdeograph(const CJKSegmenter *segmenter, int offset, CJKChar *character) {
    if (offset >= segmenter->length) return 0;
    unsigned code;
    int size = cjk_decode(segmenter->text + offset, segmenter->length - offset, &code);
    if (cjk_class(code) != CJK_IDEOGRAPH) return 0;
    character->start = offset;
    character->end = offset + size;
    return 1;
}

/// Whether a token starts at or after `offset`.
static int tokenFollows(const CJKSegmenter *segmenter, int offset) {
    while (offset < segmenter->length) {
        unsigned code;
        int size = cjk_decode(segmenter->text + offset, segmenter->length - offset, &code);
        if (cjk_class(code) != CJK_SEPARATOR) return 1;
        offset += size;
    }
    return 0;
}

/// A token made of input bytes as they are (CJK needs no folding).
static int emitRaw(CJKSegmenter *segmenter, CJKToken *token, int start, int end, int spanEnd, int colocated) {
    token->text = (const char *)segmenter->text + start;
    token->length = end - start;
    token->start = start;
    token->end = spanEnd;
    token->colocated = colocated;
    token->position = colocated ? segmenter->position - 1 : segmenter->position++;
    return SQLITE_OK;
}

/// Emits the bigram of `current` and the character after it, and moves the run on.
static int emitBigram(CJKSegmenter *segmenter, CJKToken *token, CJKChar next) {
    CJKChar first = segmenter->current;
    int spanEnd = next.end;
    CJKChar after;
    // Tiled spans: a bigram covers its first character, unless its second one ends the run.
    if (segmenter->mode == CJK_MODE_TILED && readIdeograph(segmenter, next.end, &after)) spanEnd = first.end;
    if (segmenter->mode == CJK_MODE_DOCUMENT) {
        segmenter->hasPendingUnigram = 1;
        segmenter->pendingUnigram = first;
    }
    segmenter->current = next;
    return emitRaw(segmenter, token, first.start, next.end, spanEnd, 0);
}

/// Reads a word of letters, or of digits, from `start`, folded into the buffer.
static int emitWord(CJKSegmenter *segmenter, CJKToken *token, int start, int wordClass) {
    int offset = start;
    int written = 0;
    while (offset < segmenter->length) {
        unsigned code;
        int size = cjk_decode(segmenter->text + offset, segmenter->length - offset, &code);
        if (cjk_class(code) != wordClass) break;
        if (written + 4 > segmenter->capacity) {
            // A folded character never takes more bytes than it was given, so the word never
            // needs more than its input bytes: the buffer doubles up to that.
            sqlite3_int64 capacity = (sqlite3_int64)segmenter->capacity * 2;
            if (capacity < written + 64) capacity = written + 64;
            sqlite3_int64 most = (sqlite3_int64)written + (segmenter->length - offset) + 4;
            if (capacity > most) capacity = most;
            char *buffer = sqlite3_realloc64(segmenter->buffer, (sqlite3_uint64)capacity);
            if (!buffer) return SQLITE_NOMEM;
            segmenter->buffer = buffer;
            segmenter->capacity = (int)capacity;
        }
        unsigned folded = cjk_fold(code);
        unsigned char *out = (unsigned char *)segmenter->buffer + written;
        if (folded < 0x80) {
            out[0] = (unsigned char)folded;
            written += 1;
        } else if (folded < 0x800) {
            out[0] = (unsigned char)(0xC0 | (folded >> 6));
            out[1] = (unsigned char)(0x80 | (folded & 0x3F));
            written += 2;
        } else if (folded < 0x10000) {
            out[0] = (unsigned char)(0xE0 | (folded >> 12));
            out[1] = (unsigned char)(0x80 | ((folded >> 6) & 0x3F));
            out[2] = (unsigned char)(0x80 | (folded & 0x3F));
            written += 3;
        } else {
            out[0] = (unsigned char)(0xF0 | (folded >> 18));
            out[1] = (unsigned char)(0x80 | ((folded >> 12) & 0x3F));
            out[2] = (unsigned char)(0x80 | ((folded >> 6) & 0x3F));
            out[3] = (unsigned char)(0x80 | (folded & 0x3F));
            written += 4;
        }
        offset += size;
    }
    segmenter->offset = offset;
    token->text = segmenter->buffer;
    token->length = written;
    token->start = start;
    token->end = offset;
    token->colocated = 0;
    token->position = segmenter->position++;
    return SQLITE_OK;
}

int cjk_segmenter_next(CJKSegmenter *segmenter, CJKToken *token) {
    if (segmenter->hasPendingUnigram) {
        segmenter->hasPendingUnigram = 0;
        CJKChar unigram = segmenter->pendingUnigram;
        return emitRaw(segmenter, token, unigram.start, unigram.end, unigram.end, 1);
    }
    if (segmenter->inRun) {
        CJKChar next;
        if (readIdeograph(segmenter, segmenter->current.end, &next)) return emitBigram(segmenter, token, next);
        // The run ends with `current`, which the last bigram covers.
        CJKChar last = segmenter->current;
        segmenter->inRun = 0;
        segmenter->offset = last.end;
        if (segmenter->mode == CJK_MODE_DOCUMENT
            || (segmenter->mode == CJK_MODE_QUERY && tokenFollows(segmenter, last.end))) {
            return emitRaw(segmenter, token, last.start, last.end, last.end, 0);
        }
    }
    while (segmenter->offset < segmenter->length) {
        int start = segmenter->offset;
        unsigned code;
        int size = cjk_decode(segmenter->text + start, segmenter->length - start, &code);
        int characterClass = cjk_class(code);
        if (characterClass == CJK_SEPARATOR) {
            segmenter->offset += size;
            continue;
        }
        if (characterClass != CJK_IDEOGRAPH) return emitWord(segmenter, token, start, characterClass);
        CJKChar first = {start, start + size};
        CJKChar next;
        if (!readIdeograph(segmenter, first.end, &next)) {
            // A run of one character: its unigram.
            segmenter->offset = first.end;
            return emitRaw(segmenter, token, first.start, first.end, first.end, 0);
        }
        segmenter->inRun = 1;
        segmenter->current = first;
        return emitBigram(segmenter, token, next);
    }
    return SQLITE_DONE;
}
