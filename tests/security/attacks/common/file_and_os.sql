## File, OS and network access.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT pg_read_file('/etc/passwd')

SELECT readfile('/etc/passwd')

SELECT load_file('/etc/passwd')

SELECT * FROM read_csv('/etc/passwd')

SELECT * FROM read_text('/etc/passwd')

SELECT * FROM '/etc/passwd'

SELECT * FROM read_blob('/etc/hostname')

SELECT * FROM glob('/etc/*')

SELECT writefile('/tmp/pwned', 'x')

SELECT edit('x', 'vi')

SELECT pg_ls_dir('.')

SELECT pg_stat_file('postgresql.conf')

SELECT lo_import('/etc/passwd')

SELECT lo_export(1, '/tmp/pwned')

SELECT getenv('HOME')

SELECT * FROM read_parquet('/tmp/x.parquet')

SELECT * FROM read_json_auto('/etc/x.json')

SELECT * FROM 'https://example.com/x.csv'

SELECT * FROM read_csv_auto('s3://bucket/x.csv')

SELECT sys_exec('id')

SELECT sys_eval('id')

SELECT * FROM orders INTO OUTFILE '/tmp/pwned'

SELECT * FROM orders INTO DUMPFILE '/tmp/pwned'

SELECT 1 INTO OUTFILE '/tmp/pwned'

LOAD DATA INFILE '/etc/passwd' INTO TABLE orders

LOAD DATA LOCAL INFILE '/etc/passwd' INTO TABLE orders

SELECT pg_read_binary_file('/etc/passwd')

SELECT * FROM sniff_csv('/etc/passwd')

SELECT * FROM parquet_metadata('/tmp/x.parquet')

SELECT fts3_tokenizer('simple')

SELECT length(readfile('/etc/passwd')) FROM orders

SELECT (SELECT pg_read_file('/etc/hostname')) AS h

SELECT id FROM orders WHERE load_file('/etc/passwd') IS NOT NULL

SELECT zipfile('/tmp/x.zip')

SELECT * FROM read_xlsx('/tmp/x.xlsx')

SELECT * FROM sqlite_scan('/tmp/x.db', 't')
