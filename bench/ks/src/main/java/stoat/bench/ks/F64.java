package stoat.bench.ks;

import com.fasterxml.jackson.core.io.schubfach.DoubleToDecimal;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * A double as stoat's JSON writer spells it (runtime/src/buf.c,
 * stoat_format_f64): the shortest decimal that parses back to the value,
 * laid out as JSON and JavaScript do: plain notation for exponents -6..20,
 * always with a fraction ("1.0", "0.000001", "123.45"), exponent notation
 * otherwise ("1e21", "1.5e-7", "-2.5e+..." is never written: "2.5e22").
 *
 * stoat finds the digits by trying printf's correctly rounded %.14e, %.15e
 * and %.16e in turn (subnormals: every precision from 1 up) and keeping the
 * first that round-trips. For normal doubles whose significand is not a
 * power of two that is exactly the shortest round-tripping decimal closest
 * to the value, which Schubfach (Jackson's DoubleToDecimal, the algorithm of
 * JDK 19's Double.toString) computes fast. Powers of two (asymmetric rounding
 * interval) and subnormals (where Java's toString insists on two digits) take
 * the slow path: stoat's own search, with BigDecimal's exact rounding
 * standing in for glibc's printf.
 */
final class F64 {
	private F64() {
	}

	/** The value's JSON text, or null for NaN and infinities (stoat reports those as errors). */
	static String format(double v) {
		if (!Double.isFinite(v))
			return null;
		long bits = Double.doubleToRawLongBits(v);
		boolean negative = bits < 0;
		boolean slow = (bits & 0x000F_FFFF_FFFF_FFFFL) == 0 || Math.abs(v) < Double.MIN_NORMAL;
		if (v == 0.0)
			return negative ? "-0.0" : "0.0";
		char[] digits = new char[20];
		int n;
		int exponent;
		if (slow) {
			BigDecimal exact = new BigDecimal(Math.abs(v));
			BigDecimal r = null;
			int precision = Math.abs(v) < Double.MIN_NORMAL ? 1 : 15;
			for (; precision < 17; precision++) {
				r = exact.round(new MathContext(precision, RoundingMode.HALF_EVEN));
				if (Double.parseDouble(r.toString()) == Math.abs(v))
					break;
			}
			if (precision == 17)
				r = exact.round(new MathContext(17, RoundingMode.HALF_EVEN));
			String unscaled = r.unscaledValue().toString();
			n = unscaled.length();
			unscaled.getChars(0, n, digits, 0);
			exponent = n - 1 - r.scale();
		} else {
			// "123.45", "1.0E-5", "1.2345E7" (Double.toString's layout)
			String s = DoubleToDecimal.toString(Math.abs(v));
			int e = s.indexOf('E');
			int end = e < 0 ? s.length() : e;
			int point = -1;
			n = 0;
			int leadingZeros = 0;
			for (int i = 0; i < end; i++) {
				char c = s.charAt(i);
				if (c == '.') {
					point = n + leadingZeros;
					continue;
				}
				if (n == 0 && c == '0') {
					leadingZeros++;
					continue;
				}
				digits[n++] = c;
			}
			if (point < 0)
				point = n + leadingZeros;
			// the first significant digit sits at index leadingZeros of the digit string
			exponent = (e < 0 ? 0 : Integer.parseInt(s, e + 1, s.length(), 10)) + point - leadingZeros - 1;
		}
		while (n > 1 && digits[n - 1] == '0')
			n--;

		StringBuilder o = new StringBuilder(n + 8);
		if (negative)
			o.append('-');
		if (exponent >= 21 || exponent < -6) {
			o.append(digits[0]);
			if (n > 1)
				o.append('.').append(digits, 1, n - 1);
			o.append('e').append(exponent);
		} else if (exponent >= 0) {
			int intDigits = exponent + 1;
			for (int i = 0; i < intDigits; i++)
				o.append(i < n ? digits[i] : '0');
			o.append('.');
			if (n > intDigits)
				o.append(digits, intDigits, n - intDigits);
			else
				o.append('0');
		} else {
			o.append("0.");
			for (int i = 0; i < -exponent - 1; i++)
				o.append('0');
			o.append(digits, 0, n);
		}
		return o.toString();
	}
}
