## Transaction control that could end the read-only transaction.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

BEGIN

COMMIT

ROLLBACK

START TRANSACTION

BEGIN; DELETE FROM orders; COMMIT

SAVEPOINT s

RELEASE SAVEPOINT s

ROLLBACK TO SAVEPOINT s

END

COMMIT; DELETE FROM orders

SET TRANSACTION READ WRITE

BEGIN TRANSACTION READ WRITE

START TRANSACTION READ WRITE

COMMIT; SET default_transaction_read_only = off

ABORT

PREPARE TRANSACTION 'x'

BEGIN IMMEDIATE

BEGIN EXCLUSIVE

XA START 'x'

LOCK TABLES orders WRITE

UNLOCK TABLES
