package stoat.bench.ks;

import java.util.ArrayList;
import java.util.List;

/** The string functions of stoat's standard library (stdlib/std.c) that the scenarios use, byte for byte. */
final class Text {
	private Text() {
	}

	/** lower(s): lower-cases the ASCII letters A-Z; every other character is unchanged. */
	static String lower(String s) {
		int i = 0;
		int n = s.length();
		while (i < n && !(s.charAt(i) >= 'A' && s.charAt(i) <= 'Z'))
			i++;
		if (i == n)
			return s;
		char[] c = s.toCharArray();
		for (; i < n; i++)
			if (c[i] >= 'A' && c[i] <= 'Z')
				c[i] = (char) (c[i] + ('a' - 'A'));
		return new String(c);
	}

	/** upper(s): upper-cases the ASCII letters a-z; every other character is unchanged. */
	static String upper(String s) {
		int i = 0;
		int n = s.length();
		while (i < n && !(s.charAt(i) >= 'a' && s.charAt(i) <= 'z'))
			i++;
		if (i == n)
			return s;
		char[] c = s.toCharArray();
		for (; i < n; i++)
			if (c[i] >= 'a' && c[i] <= 'z')
				c[i] = (char) (c[i] - ('a' - 'A'));
		return new String(c);
	}

	/*
	 * split_words' word bytes are ASCII letters and digits and every byte >= 0x80;
	 * in UTF-16, every char >= 0x80 (which UTF-8 encodes as bytes >= 0x80 only).
	 */
	private static boolean isWordChar(char c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
	}

	/** split_words(s): the maximal runs of word characters; everything else separates words. */
	static List<String> splitWords(String s) {
		List<String> words = new ArrayList<>();
		int n = s.length();
		for (int i = 0; i < n;) {
			if (!isWordChar(s.charAt(i))) {
				i++;
				continue;
			}
			int start = i;
			while (i < n && isWordChar(s.charAt(i)))
				i++;
			words.add(s.substring(start, i));
		}
		return words;
	}

	/** len(w) > 1, with stoat's len: the length in UTF-8 bytes, not in characters. */
	static boolean longerThanOneByte(String w) {
		return w.length() > 1 || (w.length() == 1 && w.charAt(0) >= 0x80);
	}
}
