package com.example.wordstats;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.lang3.StringUtils;

/** Counts how often each word occurs in a text. */
public class WordCounter {
    private final Map<String, Integer> counts = new LinkedHashMap<>();

    public void addText(String text) {
        if (StringUtils.isBlank(text)) {
            return;
        }
        for (String raw : StringUtils.split(text.toLowerCase(), " \t\n.,;:!?\"()")) {
            String word = StringUtils.strip(raw, "'");
            if (!word.isEmpty()) {
                counts.merge(word, 1, Integer::sum);
            }
        }
    }

    public int count(String word) {
        return counts.getOrDefault(word.toLowerCase(), 0);
    }

    public int distinctWords() {
        return counts.size();
    }

    public List<Map.Entry<String, Integer>> top(int limit) {
        List<Map.Entry<String, Integer>> entries = new ArrayList<>(counts.entrySet());
        entries.sort(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder())
                .thenComparing(Map.Entry.comparingByKey()));
        return entries.subList(0, Math.min(limit, entries.size()));
    }
}
