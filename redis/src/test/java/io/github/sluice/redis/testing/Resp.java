package io.github.sluice.redis.testing;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal RESP2 client for test administration (INFO, CLIENT PAUSE, FLUSHALL, TTL...): a fresh
 * socket per command, so it works the same before and after the server is killed and restarted,
 * independently of the store under test.
 */
public final class Resp {

    private Resp() {
    }

    /**
     * Sends one command and reads its reply.
     *
     * @param port the server's port on 127.0.0.1
     * @param args the command and its arguments
     * @return a String (simple or bulk), Long, List, or null
     * @throws IOException if the server cannot be reached or replies with an error
     */
    public static Object call(int port, String... args) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            StringBuilder sb = new StringBuilder().append('*').append(args.length).append("\r\n");
            for (String a : args) {
                byte[] b = a.getBytes(StandardCharsets.UTF_8);
                sb.append('$').append(b.length).append("\r\n").append(a).append("\r\n");
            }
            out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return read(new BufferedInputStream(s.getInputStream()));
        }
    }

    private static Object read(InputStream in) throws IOException {
        int type = in.read();
        String line = line(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new IOException("Redis error: " + line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                byte[] b = in.readNBytes(len + 2);
                return new String(b, 0, len, StandardCharsets.UTF_8);
            }
            case '*': {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                List<Object> list = new ArrayList<>(len);
                for (int i = 0; i < len; i++) {
                    list.add(read(in));
                }
                return list;
            }
            default:
                throw new IOException("unexpected RESP type " + type);
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            sb.append((char) c);
        }
        in.read();
        return sb.toString();
    }
}
