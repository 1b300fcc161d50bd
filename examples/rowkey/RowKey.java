/*
 * RowKey.java -- the row key of `fairshuf lines --seed=S`, from docs/rowkey.md
 * alone, on the JDK's own ChaCha20 (javax.crypto, Java 11+): the building
 * block of a Spark UDF (docs/rowkey.md, "Spark").  Record i's key is word
 * i mod 2^35 of the ChaCha20 keystream under K with the nonce
 * (i >> 35, level, 0); records sorted by (key(i, 0), key(i, 1), ...) as
 * unsigned 64-bit numbers are in fairshuf's order.
 *
 *   javac RowKey.java && java RowKey SEED I [LEVEL]   prints the key (unsigned)
 *   java RowKey --check < rows.tsv                     "seed TAB i TAB level TAB key" lines
 */
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Cipher;
import javax.crypto.spec.ChaCha20ParameterSpec;
import javax.crypto.spec.SecretKeySpec;

public final class RowKey {
    private RowKey() {}

    private static final long SEGMENT = 1L << 35; // words per nonce

    /** K: 64 hex digits are the key itself; any other seed, SHA-256 of its UTF-8 bytes. */
    public static byte[] seedKey(String seed) throws GeneralSecurityException {
        if (seed.isEmpty())
            throw new IllegalArgumentException("invalid seed: empty");
        byte[] k;
        if (seed.matches("[0-9a-fA-F]{64}")) {
            k = new byte[32];
            for (int b = 0; b < 32; b++)
                k[b] = (byte) Integer.parseInt(seed.substring(2 * b, 2 * b + 2), 16);
        } else {
            k = MessageDigest.getInstance("SHA-256").digest(seed.getBytes(StandardCharsets.UTF_8));
        }
        return k; // seed derivation ends here
    }

    /** The key of the order of groups (--group-by): seedKey("fairshuf lines groups v1:" + hex(K)). */
    public static byte[] groupsKey(byte[] key) throws GeneralSecurityException {
        StringBuilder s = new StringBuilder("fairshuf lines groups v1:");
        for (byte b : key)
            s.append(String.format("%02x", b & 0xff));
        return seedKey(s.toString());
    }

    /** count consecutive keys from record first at level (unsigned 64-bit values in longs). */
    public static long[] keys(byte[] key, long first, int count, int level)
            throws GeneralSecurityException {
        long[] out = new long[count];
        int done = 0;
        while (done < count) {
            long i = first + done;
            long w = i & (SEGMENT - 1);                 // word in its nonce's stream
            int n = (int) Math.min(count - done, SEGMENT - w);
            int skip = (int) (w & 7);                   // words before i in its block
            int blocks = (skip + n + 7) / 8;
            byte[] nonce = new byte[12];
            putLE32(nonce, 0, (int) (i >>> 35));
            putLE32(nonce, 4, level);
            // a fresh Cipher: the JDK refuses to re-initialise one with the
            // key and nonce it had (a guard for encryption, not needed here)
            Cipher c = Cipher.getInstance("ChaCha20");
            c.init(Cipher.DECRYPT_MODE, new SecretKeySpec(key, "ChaCha20"),
                   new ChaCha20ParameterSpec(nonce, (int) (w >>> 3)));
            byte[] ks = c.doFinal(new byte[64 * blocks]);
            for (int j = 0; j < n; j++)
                out[done + j] = getLE64(ks, 8 * (skip + j));
            done += n;
        }
        return out;
    }

    public static long key(byte[] key, long i, int level) throws GeneralSecurityException {
        return keys(key, i, 1, level)[0];
    }

    /** A signed long that sorts as the unsigned key (Spark's LongType, SQL BIGINT). */
    public static long sortKey(long key) {
        return key ^ Long.MIN_VALUE;
    }

    /** fairshuf's order of records i and j: level-0 keys, then levels 1, 2, ... (64 levels), then i. */
    public static int compare(byte[] key, long i, long j) throws GeneralSecurityException {
        for (int level = 0; i != j && level < 64; level++) {
            int c = Long.compareUnsigned(key(key, i, level), key(key, j, level));
            if (c != 0)
                return c;
        }
        return Long.compareUnsigned(i, j);
    }

    private static void putLE32(byte[] b, int at, int v) {
        for (int k = 0; k < 4; k++)
            b[at + k] = (byte) (v >>> (8 * k));
    }

    private static long getLE64(byte[] b, int at) {
        long v = 0;
        for (int k = 7; k >= 0; k--)
            v = (v << 8) | (b[at + k] & 0xff);
        return v;
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--check")) {
            check();
            return;
        }
        if (args.length == 2 && args[0].equals("--groups-key")) {
            StringBuilder s = new StringBuilder();
            for (byte b : groupsKey(seedKey(args[1])))
                s.append(String.format("%02x", b & 0xff));
            System.out.println(s);
            return;
        }
        if (args.length == 3 && args[0].equals("--order")) {
            order(seedKey(args[1]), Integer.parseInt(args[2]));
            return;
        }
        if (args.length < 2 || args.length > 3) {
            System.err.println("usage: java RowKey SEED I [LEVEL] | --check < rows.tsv"
                               + " | --groups-key SEED | --order SEED N");
            System.exit(2);
        }
        int level = args.length == 3 ? Integer.parseUnsignedInt(args[2]) : 0;
        System.out.println(Long.toUnsignedString(
            key(seedKey(args[0]), Long.parseUnsignedLong(args[1]), level)));
    }

    /* Prints 0 .. n-1 in fairshuf's order: what orderBy(sortKey(key(i, 0)))
     * gives, equal keys by compare() (`seq 0 N-1 | fairshuf lines --seed=S`). */
    private static void order(byte[] k, int n) throws Exception {
        long[] keys = keys(k, 0, n, 0);
        Long[] rows = new Long[n];
        for (int i = 0; i < n; i++)
            rows[i] = (long) i;
        java.util.Arrays.sort(rows, (a, b) -> {
            long x = sortKey(keys[(int) (long) a]), y = sortKey(keys[(int) (long) b]);
            if (x != y)
                return x < y ? -1 : 1;
            try {
                return compare(k, a, b);
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        });
        StringBuilder out = new StringBuilder();
        for (Long r : rows)
            out.append(r).append('\n');
        System.out.print(out);
    }

    /* Reads "seed TAB i TAB level TAB key" lines, prints each mismatch and a
     * summary; exit status 1 if any row differs. */
    private static void check() throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        long rows = 0, bad = 0;
        String seed = null;
        byte[] k = null;
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.split("\t", -1);
            if (!f[0].equals(seed)) {
                seed = f[0];
                k = seedKey(seed);
            }
            long got = key(k, Long.parseUnsignedLong(f[1]), Integer.parseUnsignedInt(f[2]));
            rows++;
            if (got != Long.parseUnsignedLong(f[3]) && bad++ < 5)
                System.out.println("differs: " + line + " java " + Long.toUnsignedString(got));
        }
        System.out.println(rows + " rows, " + bad + " differ");
        System.exit(bad == 0 && rows > 0 ? 0 : 1);
    }
}
