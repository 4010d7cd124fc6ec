#include "cjk_tokenizer.h"

#include <sqlcipher/sqlite3.h>

int cipherstore_cjk_register_fts3(sqlite3 *db);
int cipherstore_cjk_register_fts5(sqlite3 *db);
void cipherstore_cjk_rank(sqlite3_context *context, int count, sqlite3_value **values);

int cipherstore_cjk_register(sqlite3 *db) {
    int rc = cipherstore_cjk_register_fts3(db);
    if (rc == SQLITE_OK) rc = cipherstore_cjk_register_fts5(db);
    if (rc == SQLITE_OK) {
        rc = sqlite3_create_function(db, "fts4_rank", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, 0,
                                     cipherstore_cjk_rank, 0, 0);
    }
    return rc;
}
