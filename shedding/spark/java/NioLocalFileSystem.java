// Hadoop's local file system, setting permissions with java.nio instead of a chmod process.
// Compiled and used by shedding.spark_fs (see its docstring for why and what it measured).
package shedding.hadoop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/** Hadoop's checksummed LocalFileSystem over {@link Raw}. */
public class NioLocalFileSystem extends LocalFileSystem {
    public NioLocalFileSystem() {
        super(new Raw());
    }

    /**
     * RawLocalFileSystem whose setPermission (called for every file and folder it creates) sets the
     * nine rwx bits with java.nio; without Hadoop's native library the parent runs "chmod" in a new
     * process. The sticky bit, which the shell command would also set, is left alone.
     */
    public static class Raw extends RawLocalFileSystem {
        private static final PosixFilePermission[] BITS = {
            PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
            PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ};

        @Override
        public void setPermission(Path p, FsPermission permission) throws IOException {
            short mode = permission.toShort();
            Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
            for (int i = 0; i < BITS.length; i++) {
                if ((mode & (1 << i)) != 0) {
                    set.add(BITS[i]);
                }
            }
            Files.setPosixFilePermissions(pathToFile(p).toPath(), set);
        }
    }
}
