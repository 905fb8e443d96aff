package com.example.wordstats;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Properties;

/** Renders the most frequent words of a {@link WordCounter} as plain text. */
public class Report {
    private final Properties settings = new Properties();

    public Report() {
        try (InputStream in = Report.class.getResourceAsStream("/report.properties")) {
            settings.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String title() {
        return settings.getProperty("title");
    }

    public int topCount() {
        return Integer.parseInt(settings.getProperty("top"));
    }

    public String render(WordCounter counter) {
        StringBuilder out = new StringBuilder(title()).append('\n');
        for (Map.Entry<String, Integer> entry : counter.top(topCount())) {
            out.append(entry.getKey()).append(": ").append(entry.getValue()).append('\n');
        }
        return out.toString();
    }

    public static void main(String[] args) {
        WordCounter counter = new WordCounter();
        counter.addText(String.join(" ", args));
        System.out.print(new Report().render(counter));
    }
}
