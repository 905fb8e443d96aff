package com.example.wordstats;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class WordCounterTest {
    @Test
    public void countsWordsIgnoringCaseAndPunctuation() {
        WordCounter counter = new WordCounter();
        counter.addText("The cat saw the dog. The dog ran!");
        assertEquals(3, counter.count("the"));
        assertEquals(2, counter.count("Dog"));
        assertEquals(5, counter.distinctWords());
    }

    @Test
    public void reportListsTopWordsFromFilteredSettings() {
        WordCounter counter = new WordCounter();
        counter.addText("a b a c a b d");
        String expected = "Word statistics\na: 3\nb: 2\nc: 1\n";
        assertEquals(expected, new Report().render(counter));
    }
}
