package io.github.sluice.testing;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Binary compatibility of compiled classes with the class path they run on: every method,
 * constructor and field that the classes call on a class of a given package, looked up as the JVM
 * would resolve it. A jar built against one generation of a framework (say Spring Framework 6)
 * and run on another (7) fails with {@code NoSuchMethodError} on the first request that reaches a
 * changed call, perhaps a rare path no contract exercises; this finds every such call at once.
 *
 * <p>A class that does not load is not reported: optional integrations are guarded by the
 * presence of their classes (Boot's {@code @ConditionalOnClass}), and a test class path may lack
 * them. Reads the constant pool of each class file; no bytecode library. Stateless.
 */
public final class Linkage {

    private Linkage() {
    }

    /**
     * @param type a class of the jar (or classes directory) to check
     * @return where {@code type}'s class files were loaded from
     */
    public static Path origin(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * @param classes a classes directory or a jar
     * @param packagePrefixes the owners to check, as dotted name prefixes ({@code "org.springframework."})
     * @param loader the class path to resolve against
     * @return one line per member that a class file references and {@code loader} does not have:
     *     {@code "io/github/x/A -> org.x.B.m(Ljava/lang/Object;)V"}, sorted; empty when all link
     */
    public static List<String> missingMembers(Path classes, List<String> packagePrefixes, ClassLoader loader) {
        Set<String> missing = new TreeSet<>();
        try {
            if (Files.isDirectory(classes)) {
                check(classes, packagePrefixes, loader, missing);
            } else {
                try (FileSystem jar = FileSystems.newFileSystem(classes)) {
                    check(jar.getPath("/"), packagePrefixes, loader, missing);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new ArrayList<>(missing);
    }

    private static void check(Path root, List<String> prefixes, ClassLoader loader, Set<String> missing)
            throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(f -> f.toString().endsWith(".class") && !f.endsWith("module-info.class")).toList();
        }
        if (files.isEmpty()) {
            throw new IllegalArgumentException("no class files under " + root);
        }
        for (Path file : files) {
            String from = root.relativize(file).toString().replace(".class", "");
            for (String[] ref : references(Files.readAllBytes(file))) {
                String owner = ref[1].replace('/', '.');
                if (prefixes.stream().noneMatch(owner::startsWith)) {
                    continue;
                }
                Class<?> type;
                try {
                    type = Class.forName(owner, false, loader);
                } catch (ClassNotFoundException | LinkageError absent) {
                    continue; // guarded by the class's presence, see the class comment
                }
                boolean found = ref[0].equals("field") ? hasField(type, ref[2], ref[3])
                        : ref[2].equals("<init>") ? hasConstructor(type, ref[3]) : hasMethod(type, ref[2], ref[3]);
                if (!found) {
                    missing.add(from + " -> " + owner + "." + ref[2] + (ref[0].equals("field") ? ":" : "") + ref[3]);
                }
            }
        }
    }

    /** @return {kind ("field" or "method"), owner, name, descriptor} of every member reference */
    private static List<String[]> references(byte[] classFile) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        int[] first = new int[count];
        int[] second = new int[count];
        int[] tag = new int[count];
        for (int i = 1; i < count; i++) {
            tag[i] = in.readUnsignedByte();
            switch (tag[i]) {
                case 1 -> utf8[i] = in.readUTF();
                case 3, 4 -> in.readInt();
                case 5, 6 -> {
                    in.readLong();
                    i++;
                }
                case 7, 8, 16, 19, 20 -> first[i] = in.readUnsignedShort();
                case 9, 10, 11, 12, 17, 18 -> {
                    first[i] = in.readUnsignedShort();
                    second[i] = in.readUnsignedShort();
                }
                case 15 -> {
                    in.readUnsignedByte();
                    first[i] = in.readUnsignedShort();
                }
                default -> throw new IOException("unknown constant pool tag " + tag[i]);
            }
        }
        List<String[]> refs = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            if (tag[i] == 9 || tag[i] == 10 || tag[i] == 11) {
                String owner = utf8[first[first[i]]];
                if (owner.startsWith("[")) {
                    continue; // clone() on an array
                }
                int nameAndType = second[i];
                refs.add(new String[] {tag[i] == 9 ? "field" : "method", owner, utf8[first[nameAndType]],
                    utf8[second[nameAndType]]});
            }
        }
        return refs;
    }

    private static boolean hasConstructor(Class<?> type, String descriptor) {
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            if (descriptor.equals(descriptor(c.getParameterTypes(), void.class))) {
                return true;
            }
        }
        return false;
    }

    /** The JVM's method resolution: the class, its superclasses, then every superinterface. */
    private static boolean hasMethod(Class<?> type, String name, String descriptor) {
        for (Class<?> c : supertypes(type)) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(name) && descriptor.equals(descriptor(m.getParameterTypes(), m.getReturnType()))) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean hasField(Class<?> type, String name, String descriptor) {
        for (Class<?> c : supertypes(type)) {
            for (Field f : c.getDeclaredFields()) {
                if (f.getName().equals(name) && descriptor.equals(descriptor(f.getType()))) {
                    return true;
                }
            }
        }
        return false;
    }

    private static List<Class<?>> supertypes(Class<?> type) {
        List<Class<?>> all = new ArrayList<>();
        Set<Class<?>> seen = new HashSet<>();
        Deque<Class<?>> interfaces = new ArrayDeque<>();
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            all.add(c);
            interfaces.addAll(List.of(c.getInterfaces()));
        }
        if (type.isInterface()) {
            all.add(Object.class);
        }
        while (!interfaces.isEmpty()) {
            Class<?> i = interfaces.poll();
            if (seen.add(i)) {
                all.add(i);
                interfaces.addAll(List.of(i.getInterfaces()));
            }
        }
        return all;
    }

    private static String descriptor(Class<?>[] parameters, Class<?> result) {
        StringBuilder b = new StringBuilder("(");
        for (Class<?> p : parameters) {
            b.append(descriptor(p));
        }
        return b.append(')').append(descriptor(result)).toString();
    }

    private static String descriptor(Class<?> type) {
        if (type.isArray()) {
            return type.getName().replace('.', '/');
        }
        if (type.isPrimitive()) {
            return switch (type.getName()) {
                case "void" -> "V";
                case "boolean" -> "Z";
                case "byte" -> "B";
                case "char" -> "C";
                case "short" -> "S";
                case "int" -> "I";
                case "long" -> "J";
                case "float" -> "F";
                case "double" -> "D";
                default -> throw new IllegalArgumentException(type.getName());
            };
        }
        return "L" + type.getName().replace('.', '/') + ";";
    }
}
