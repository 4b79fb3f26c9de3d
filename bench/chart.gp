# bench/chart.gp - bench/run's chart: CPU seconds per million input records,
# per scenario and guarantee, for the limit, stoat and Kafka Streams (log
# scale: the peers differ by an order of magnitude).
# usage: gnuplot -e "datafile='X.dat'; outfile='X.png'" bench/chart.gp
set terminal pngcairo size 1000,520 font ",10" noenhanced
set output outfile
set title "CPU seconds per million input records (lower is better)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y
set yrange [0.1:*]
set ylabel "CPU s / M records (log scale)"
set grid ytics
set key top left
set datafile missing "-"
set xtics rotate by -20
plot datafile using 2:xtic(1) title "limit (C, librdkafka)" lc rgb "#999999", \
     '' using 3 title "stoat" lc rgb "#2a7ab9", \
     '' using 4 title "Kafka Streams" lc rgb "#d9822b"
