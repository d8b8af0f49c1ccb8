package io.github.sluice.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Linkage} finds a call whose method the class path lacks, and only that one. */
class LinkageTest {

    /**
     * A class file {@code T} that calls {@code String.length()}, which exists, {@code
     * String.noSuchMethod()}, which does not, reads {@code String.CASE_INSENSITIVE_ORDER} and a
     * field that does not exist: what a jar built against another version of a library looks like.
     */
    private static byte[] callerClassFile() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(0xCAFEBABE);
        out.writeShort(0);
        out.writeShort(61);
        String[] utf8 = {"T", "java/lang/Object", "java/lang/String", "noSuchMethod", "()V", "length", "()I",
            "CASE_INSENSITIVE_ORDER", "Ljava/util/Comparator;", "NO_SUCH_FIELD"};
        out.writeShort(1 + utf8.length + 3 + 4 + 4); // utf8s, 3 classes, 4 name-and-types, 4 references
        for (String s : utf8) { // #1 .. #10
            out.writeByte(1);
            out.writeUTF(s);
        }
        for (int name : new int[] {1, 2, 3}) { // #11 T, #12 Object, #13 String
            out.writeByte(7);
            out.writeShort(name);
        }
        int[][] nameAndTypes = {{4, 5}, {6, 7}, {8, 9}, {10, 9}}; // #14 .. #17
        for (int[] nt : nameAndTypes) {
            out.writeByte(12);
            out.writeShort(nt[0]);
            out.writeShort(nt[1]);
        }
        int[][] refs = {{10, 14}, {10, 15}, {9, 16}, {9, 17}}; // methods noSuchMethod, length; fields
        for (int[] r : refs) {
            out.writeByte(r[0]);
            out.writeShort(13);
            out.writeShort(r[1]);
        }
        out.writeShort(0x0021); // public super
        out.writeShort(11);
        out.writeShort(12);
        out.writeShort(0); // interfaces
        out.writeShort(0); // fields
        out.writeShort(0); // methods
        out.writeShort(0); // attributes
        return bytes.toByteArray();
    }

    @Test
    void missingMembers_aCallAndAFieldTheClassPathLacks_areReported_theOthersNot(@TempDir Path dir) throws IOException {
        Files.write(dir.resolve("T.class"), callerClassFile());

        assertEquals(List.of("T -> java.lang.String.NO_SUCH_FIELD:Ljava/util/Comparator;",
                "T -> java.lang.String.noSuchMethod()V"),
                Linkage.missingMembers(dir, List.of("java.lang."), getClass().getClassLoader()));
    }

    @Test
    void missingMembers_ownersOutsideThePrefixes_areNotChecked(@TempDir Path dir) throws IOException {
        Files.write(dir.resolve("T.class"), callerClassFile());

        assertEquals(List.of(), Linkage.missingMembers(dir, List.of("org.springframework."), getClass().getClassLoader()));
    }
}
