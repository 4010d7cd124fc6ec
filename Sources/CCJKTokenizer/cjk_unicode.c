// UTF-8 decoding, character classes and case folding for the `cjk` tokenizer. Tables, not
// ICU: the classes are coarse on purpose (see cjk_segmenter.h) and cost a few comparisons.
#include "cjk_segmenter.h"

int cjk_decode(const unsigned char *bytes, int available, unsigned *code) {
    unsigned char lead = bytes[0];
    if (lead < 0x80) {
        *code = lead;
        return 1;
    }
    int length;
    unsigned value;
    // The second byte's range excludes overlong forms, surrogates and values past U+10FFFF.
    unsigned char low = 0x80, high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2; value = lead & 0x1F;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3; value = lead & 0x0F;
        if (lead == 0xE0) low = 0xA0;
        if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4; value = lead & 0x07;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
    } else {
        *code = 0xFFFD;
        return 1;
    }
    if (available < length) {
        *code = 0xFFFD;
        return 1;
    }
    for (int index = 1; index < length; index++) {
        unsigned char byte = bytes[index];
        if (byte < (index == 1 ? low : 0x80) || byte > (index == 1 ? high : 0xBF)) {
            *code = 0xFFFD;
            return 1;
        }
        value = (value << 6) | (byte & 0x3F);
    }
    *code = value;
    return length;
}

typedef struct CJKRange {
    unsigned low, high;
    int characterClass;
} CJKRange;

// Non-ASCII code points that are not letters, sorted. Everything else above ASCII is a letter.
static const CJKRange ranges[] = {
    {0x0080, 0x00A9, CJK_SEPARATOR}, {0x00AB, 0x00B4, CJK_SEPARATOR}, {0x00B6, 0x00B9, CJK_SEPARATOR},
    {0x00BB, 0x00BF, CJK_SEPARATOR}, {0x00D7, 0x00D7, CJK_SEPARATOR}, {0x00F7, 0x00F7, CJK_SEPARATOR},
    {0x037E, 0x037E, CJK_SEPARATOR}, {0x0387, 0x0387, CJK_SEPARATOR}, {0x055A, 0x055F, CJK_SEPARATOR},
    {0x0589, 0x058A, CJK_SEPARATOR}, {0x060C, 0x060C, CJK_SEPARATOR}, {0x061B, 0x061B, CJK_SEPARATOR},
    {0x061F, 0x061F, CJK_SEPARATOR}, {0x0964, 0x0965, CJK_SEPARATOR},
    {0x1100, 0x11FF, CJK_IDEOGRAPH},  // Hangul jamo
    {0x2000, 0x206F, CJK_SEPARATOR},  // general punctuation, spaces, joiners
    {0x20A0, 0x20CF, CJK_SEPARATOR},  // currency
    {0x2100, 0x214F, CJK_SEPARATOR},  // letterlike symbols
    {0x2190, 0x2BFF, CJK_SEPARATOR},  // arrows, mathematical and technical symbols, shapes, dingbats
    {0x2E00, 0x2E7F, CJK_SEPARATOR},  // supplemental punctuation
    {0x2E80, 0x2FDF, CJK_IDEOGRAPH},  // CJK and Kangxi radicals
    {0x2FF0, 0x2FFF, CJK_SEPARATOR},  // ideographic description
    {0x3000, 0x3004, CJK_SEPARATOR},  // ideographic space, 、。〃〄
    {0x3005, 0x3007, CJK_IDEOGRAPH},  // 々〆〇
    {0x3008, 0x3020, CJK_SEPARATOR},  // brackets 〈《「『【〔, 〒, 〜
    {0x3021, 0x3029, CJK_IDEOGRAPH},  // Hangzhou numerals
    {0x302A, 0x3030, CJK_SEPARATOR},
    {0x3031, 0x3035, CJK_IDEOGRAPH},  // kana repeat marks
    {0x3036, 0x3037, CJK_SEPARATOR},
    {0x3038, 0x303C, CJK_IDEOGRAPH},
    {0x303D, 0x303F, CJK_SEPARATOR},
    {0x3040, 0x309F, CJK_IDEOGRAPH},  // hiragana
    {0x30A0, 0x30A0, CJK_SEPARATOR},
    {0x30A1, 0x30FA, CJK_IDEOGRAPH},  // katakana
    {0x30FB, 0x30FB, CJK_SEPARATOR},  // ・
    {0x30FC, 0x30FF, CJK_IDEOGRAPH},  // ー and iteration marks
    {0x3100, 0x31FF, CJK_IDEOGRAPH},  // bopomofo, compatibility jamo, kanbun, strokes, katakana extension
    {0x3200, 0x33FF, CJK_SEPARATOR},  // enclosed and compatibility symbols ㈱ ㎡
    {0x3400, 0x4DBF, CJK_IDEOGRAPH},  // extension A
    {0x4DC0, 0x4DFF, CJK_SEPARATOR},  // hexagrams
    {0x4E00, 0x9FFF, CJK_IDEOGRAPH},  // unified ideographs
    {0xA000, 0xA4CF, CJK_IDEOGRAPH},  // Yi
    {0xA960, 0xA97F, CJK_IDEOGRAPH},  // Hangul jamo extension A
    {0xAC00, 0xD7FF, CJK_IDEOGRAPH},  // Hangul syllables, jamo extension B
    {0xE000, 0xF8FF, CJK_SEPARATOR},  // private use
    {0xF900, 0xFAFF, CJK_IDEOGRAPH},  // compatibility ideographs
    {0xFE00, 0xFE6F, CJK_SEPARATOR},  // variation selectors, vertical, half marks, compatibility and small forms
    {0xFEFF, 0xFEFF, CJK_SEPARATOR},  // byte order mark
    {0xFF00, 0xFF0F, CJK_SEPARATOR},  // full-width punctuation
    {0xFF10, 0xFF19, CJK_DIGIT},      // full-width digits
    {0xFF1A, 0xFF20, CJK_SEPARATOR},
    {0xFF3B, 0xFF40, CJK_SEPARATOR},
    {0xFF5B, 0xFF65, CJK_SEPARATOR},  // full-width brackets, half-width ｡｢｣､･
    {0xFF66, 0xFFDC, CJK_IDEOGRAPH},  // half-width katakana and hangul
    {0xFFE0, 0xFFFF, CJK_SEPARATOR},  // full-width symbols, specials, U+FFFD
    {0x1F000, 0x1FAFF, CJK_SEPARATOR}, // emoji and pictographs
    {0x20000, 0x323AF, CJK_IDEOGRAPH}, // extensions B to H, compatibility supplement
    {0xE0000, 0xE0FFF, CJK_SEPARATOR}, // tags, variation selectors supplement
    {0xF0000, 0x10FFFF, CJK_SEPARATOR}, // private use planes
};

int cjk_class(unsigned code) {
    if (code < 0x80) {
        if (code >= '0' && code <= '9') return CJK_DIGIT;
        if ((code | 0x20) >= 'a' && (code | 0x20) <= 'z') return CJK_LETTER;
        return CJK_SEPARATOR;
    }
    if (code >= 0x4E00 && code <= 0x9FFF) return CJK_IDEOGRAPH;
    int low = 0, high = (int)(sizeof ranges / sizeof ranges[0]) - 1;
    while (low <= high) {
        int middle = (low + high) / 2;
        if (code < ranges[middle].low) {
            high = middle - 1;
        } else if (code > ranges[middle].high) {
            low = middle + 1;
        } else {
            return ranges[middle].characterClass;
        }
    }
    return CJK_LETTER;
}

/// Simple case folding where it is a table lookup; other letters are left as they are.
unsigned cjk_fold(unsigned code) {
    if (code < 0x80) return (code >= 'A' && code <= 'Z') ? code + 32 : code;
    if (code >= 0xFF21 && code <= 0xFF3A) return code - 0xFF21 + 'a';
    if (code >= 0xFF41 && code <= 0xFF5A) return code - 0xFF41 + 'a';
    if (code >= 0xFF10 && code <= 0xFF19) return code - 0xFF10 + '0';
    if (code < 0x100) return (code >= 0xC0 && code <= 0xDE && code != 0xD7) ? code + 32 : code;
    if (code < 0x180) {
        if (code == 0x130) return 'i';
        if (code == 0x178) return 0xFF;
        if (code <= 0x12F || (code >= 0x132 && code <= 0x137) || (code >= 0x14A && code <= 0x177)) return code | 1;
        if ((code >= 0x139 && code <= 0x148) || (code >= 0x179 && code <= 0x17E)) return (code & 1) ? code + 1 : code;
        return code;
    }
    if (code >= 0x386 && code <= 0x3AB) {
        if (code == 0x386) return 0x3AC;
        if (code >= 0x388 && code <= 0x38A) return code + 37;
        if (code == 0x38C) return 0x3CC;
        if (code == 0x38E || code == 0x38F) return code + 63;
        if (code >= 0x391 && code != 0x3A2) return code + 32;
        return code;
    }
    if (code == 0x3C2) return 0x3C3;  // final sigma
    if (code >= 0x400 && code <= 0x52F) {
        if (code <= 0x40F) return code + 80;
        if (code <= 0x42F) return code + 32;
        if (code == 0x4C0) return 0x4CF;
        if ((code >= 0x460 && code <= 0x481) || (code >= 0x48A && code <= 0x4BF) || code >= 0x4D0) return code | 1;
        if (code >= 0x4C1 && code <= 0x4CE) return (code & 1) ? code + 1 : code;
        return code;
    }
    if (code >= 0x531 && code <= 0x556) return code + 48;
    if (code >= 0x1E00 && code <= 0x1EFF) {
        if (code == 0x1E9E) return 0xDF;
        if (code <= 0x1E95 || code >= 0x1EA0) return code | 1;
    }
    return code;
}
