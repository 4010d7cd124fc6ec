#ifndef CIPHERSTORE_CJK_TOKENIZER_H
#define CIPHERSTORE_CJK_TOKENIZER_H

struct sqlite3;

/// The name the tokenizer is registered under: `fts4(body, tokenize=cjk)`, `fts5(body, tokenize='cjk')`.
#define CIPHERSTORE_CJK_TOKENIZER_NAME "cjk"

/// Registers on `db` the `cjk` tokenizer for FTS3 and FTS4, for FTS5 when the library has it,
/// and the `fts4_rank(matchinfo(table))` function. Safe to call again; returns an SQLite result
/// code (SQLITE_OK when a full-text engine is missing: there is then nothing to register).
///
/// FTS3 takes tokenizers through the two-argument `fts3_tokenizer()` SQL function, which SQLite
/// keeps disabled because SQL that may call it can make the process jump to any address. It is
/// enabled for the registration statement alone and put back as it was.
int cipherstore_cjk_register(struct sqlite3 *db);

/// What `cipherstore_cjk_runs` reports: a run of CJK characters (ideographs, kana, hangul),
/// indexed as overlapping bigrams, or a run of other letters and digits, indexed as words.
enum {
    CIPHERSTORE_CJK_RUN_WORD = 0,
    CIPHERSTORE_CJK_RUN_CJK = 1,
};

/// Called for each run: its kind, its byte range in the text, and how many characters it has.
typedef void (*cipherstore_cjk_run_visitor)(void *context, int kind, int start, int end, int characters);

/// Reports, in order, the runs of characters the tokenizer indexes in `text` (`length` bytes,
/// any bytes: invalid UTF-8 counts as separators). Everything between two runs is a separator.
/// Runs of the two kinds may touch (`边玩iPhone`): the second then starts where the first ends.
void cipherstore_cjk_runs(const char *text, int length, cipherstore_cjk_run_visitor visit, void *context);

#endif
