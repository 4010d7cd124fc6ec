// fts4_rank(matchinfo(table) [, weight, …]): a relevance score for FTS3/FTS4 rows, which have
// no rank of their own. For each phrase of the query and each column, the row's hits divided
// by the hits in all rows, times the column's weight (1 unless given), summed: rows that hold
// more of the query's rarer phrases score higher. ORDER BY it DESC.
#include <sqlcipher/sqlite3.h>
#include <string.h>

void cipherstore_cjk_rank(sqlite3_context *context, int count, sqlite3_value **values) {
    static const char *usage = "fts4_rank: the first argument must be matchinfo(table) in its default format 'pcx', "
                               "followed by at most one numeric weight per column, as in "
                               "fts4_rank(matchinfo(document), 2.0, 1.0)";
    if (count < 1 || sqlite3_value_type(values[0]) != SQLITE_BLOB) {
        sqlite3_result_error(context, usage, -1);
        return;
    }
    const unsigned char *blob = sqlite3_value_blob(values[0]);
    int bytes = sqlite3_value_bytes(values[0]);
    unsigned header[2];
    if (!blob || bytes < (int)sizeof header) {
        sqlite3_result_error(context, usage, -1);
        return;
    }
    memcpy(header, blob, sizeof header);
    sqlite3_int64 phrases = header[0], columns = header[1];
    // p, c, then three integers for each phrase and column: nothing else is 'pcx'.
    if (bytes != (sqlite3_int64)sizeof(unsigned) * (2 + 3 * phrases * columns) || count - 1 > columns) {
        sqlite3_result_error(context, usage, -1);
        return;
    }
    double score = 0;
    for (sqlite3_int64 phrase = 0; phrase < phrases; phrase++) {
        for (sqlite3_int64 column = 0; column < columns; column++) {
            unsigned hits[2];
            memcpy(hits, blob + sizeof(unsigned) * (2 + 3 * (phrase * columns + column)), sizeof hits);
            if (hits[0] == 0 || hits[1] == 0) continue;
            double weight = column + 1 < count ? sqlite3_value_double(values[column + 1]) : 1.0;
            score += weight * (double)hits[0] / (double)hits[1];
        }
    }
    sqlite3_result_double(context, score);
}
