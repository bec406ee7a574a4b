/*
 * personal-envs: a command-line bridge to a real Lucene (Anserini's fat jar, as Pyserini runs it) for the PersonalWAB
 * search benchmarks.  Compiled and run by benchmarks/personalwab_lucene_agreement.py; not part of the package.
 *
 *   analyze TEXTS OUT          the terms of each text (JSON lines of strings) through Anserini's default English
 *                              analyzer, the one the official index and Pyserini's LuceneSearcher use
 *   tokenize TEXTS OUT         the tokens of each text from Lucene's StandardTokenizer alone (no filters)
 *   search INDEX QUERIES OUT   SimpleSearcher.search(q, 10) for each query (what LuceneSearcher.search calls)
 *   dump INDEX TERMS DOCS      term statistics and per-document norms and ids of an index whose postings, stored
 *                              fields and term vectors are absent (the official index in the repository snapshot):
 *                              only the term dictionary, norms and doc values are read
 */
import com.fasterxml.jackson.databind.ObjectMapper;
import io.anserini.analysis.AnalyzerUtils;
import io.anserini.analysis.DefaultEnglishAnalyzer;
import io.anserini.search.SimpleSearcher;
import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.codecs.Codec;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.codecs.DocValuesProducer;
import org.apache.lucene.codecs.FieldsProducer;
import org.apache.lucene.codecs.NormsProducer;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.IndexFileNames;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SegmentInfo;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.SegmentReadState;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexOutput;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.SmallFloat;

public class PwabLucene {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "analyze" -> analyze(Paths.get(args[1]), Paths.get(args[2]));
      case "tokenize" -> tokenize(Paths.get(args[1]), Paths.get(args[2]));
      case "search" -> search(args[1], Paths.get(args[2]), Paths.get(args[3]));
      case "dump" -> dump(Paths.get(args[1]), Paths.get(args[2]), Paths.get(args[3]));
      default -> throw new IllegalArgumentException("unknown command " + args[0]);
    }
  }

  private static List<String> readStrings(Path path) throws Exception {
    List<String> texts = new ArrayList<>();
    try (BufferedReader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      String line;
      while ((line = in.readLine()) != null) {
        texts.add(JSON.readValue(line, String.class));
      }
    }
    return texts;
  }

  private static void analyze(Path texts, Path out) throws Exception {
    Analyzer analyzer = DefaultEnglishAnalyzer.newDefaultInstance();
    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8))) {
      for (String text : readStrings(texts)) {
        w.println(JSON.writeValueAsString(AnalyzerUtils.analyze(analyzer, text)));
      }
    }
  }

  private static void tokenize(Path texts, Path out) throws Exception {
    try (StandardTokenizer tokenizer = new StandardTokenizer();
         PrintWriter w = new PrintWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8))) {
      CharTermAttribute term = tokenizer.addAttribute(CharTermAttribute.class);
      for (String text : readStrings(texts)) {
        List<String> tokens = new ArrayList<>();
        tokenizer.setReader(new StringReader(text));
        tokenizer.reset();
        while (tokenizer.incrementToken()) {
          tokens.add(term.toString());
        }
        tokenizer.end();
        tokenizer.close();
        w.println(JSON.writeValueAsString(tokens));
      }
    }
  }

  private static void search(String index, Path queries, Path out) throws Exception {
    try (SimpleSearcher searcher = new SimpleSearcher(index);
         PrintWriter w = new PrintWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8))) {
      for (String query : readStrings(queries)) {
        List<Map<String, Object>> hits = new ArrayList<>();
        for (SimpleSearcher.Result hit : searcher.search(query, 10)) {
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("docid", hit.docid);
          row.put("score", hit.score);
          hits.add(row);
        }
        w.println(JSON.writeValueAsString(hits));
      }
    }
  }

  /** Writes an empty but well-formed postings file (header and footer) where the snapshot lacks one. */
  private static void stub(Directory dir, SegmentInfo si, String suffix, String ext, String codec) throws Exception {
    String name = IndexFileNames.segmentFileName(si.name, suffix, ext);
    if (Arrays.asList(dir.listAll()).contains(name)) {
      return;
    }
    try (IndexOutput out = dir.createOutput(name, IOContext.DEFAULT)) {
      CodecUtil.writeIndexHeader(out, codec, 0, si.getId(), suffix);
      CodecUtil.writeFooter(out);
    }
  }

  private static void dump(Path index, Path termsOut, Path docsOut) throws Exception {
    try (Directory dir = FSDirectory.open(index)) {
      SegmentInfos infos = SegmentInfos.readLatestCommit(dir);
      if (infos.size() != 1) {
        throw new IllegalStateException("expected one segment, found " + infos.size());
      }
      SegmentInfo si = infos.info(0).info;
      Codec codec = si.getCodec();
      FieldInfos fields = codec.fieldInfosFormat().read(dir, si, "", IOContext.READONCE);
      String suffix = "Lucene90_0";
      stub(dir, si, suffix, "doc", "Lucene90PostingsWriterDoc");
      stub(dir, si, suffix, "pos", "Lucene90PostingsWriterPos");
      SegmentReadState state = new SegmentReadState(dir, si, fields, IOContext.READ);
      try (FieldsProducer postings = codec.postingsFormat().fieldsProducer(state);
           PrintWriter w = new PrintWriter(Files.newBufferedWriter(termsOut, StandardCharsets.UTF_8))) {
        Terms terms = postings.terms("contents");
        w.println(JSON.writeValueAsString(Map.of("docCount", terms.getDocCount(),
            "sumTotalTermFreq", terms.getSumTotalTermFreq(), "maxDoc", si.maxDoc(),
            "lucene", si.getVersion().toString())));
        TermsEnum te = terms.iterator();
        BytesRef term;
        while ((term = te.next()) != null) {
          w.println(JSON.writeValueAsString(List.of(term.utf8ToString(), te.docFreq(), te.totalTermFreq())));
        }
      }
      try (NormsProducer norms = codec.normsFormat().normsProducer(state);
           DocValuesProducer values = codec.docValuesFormat().fieldsProducer(state);
           PrintWriter w = new PrintWriter(Files.newBufferedWriter(docsOut, StandardCharsets.UTF_8))) {
        NumericDocValues lengths = norms.getNorms(fields.fieldInfo("contents"));
        FieldInfo idField = fields.fieldInfo("id");
        BinaryDocValues ids = values.getBinary(idField);
        for (int doc = 0; doc < si.maxDoc(); doc++) {
          String id = ids.advanceExact(doc) ? ids.binaryValue().utf8ToString() : "";
          long norm = lengths.advanceExact(doc) ? lengths.longValue() : 0;
          w.println(JSON.writeValueAsString(List.of(id, (int) (norm & 0xFF),
              SmallFloat.byte4ToInt((byte) norm))));
        }
      }
    }
  }
}
