package main

import "math/rand/v2"

// Facts transcribed from the sources of SOURCES.md. Keys in the source fields refer to it.

// carrierOwners are the owner prefixes of Source A whose owner is a line of the registry, labelled
// with the SCAC that line trades under. Source A lists the prefixes of APL and ANL under CMA CGM
// and Hamburg Süd's SUDU under Maersk, which own that equipment today.
var carrierOwners = []struct {
	scac     string
	prefixes []string
}{
	{"MSCU", []string{"GTIU", "MEDU", "MSCU", "MSDU", "MSMU", "MSNU", "MSPU", "MSTU", "MSYU", "MSZU"}},
	{"MAEU", []string{"APMU", "CADU", "CNIU", "COZU", "ENAU", "FAAU", "FRLU", "GRIU", "HASU", "KHJU", "KHLU", "KNLU", "LOTU", "MAEU", "MALU", "MCAU", "MCHU", "MCRU", "MHHU", "MIEU", "MMAU", "MNBU", "MRKU", "MRSU", "MSAU", "MSFU", "MSKU", "MSWU", "MVIU", "MWCU", "MWMU", "OCLU", "POCU", "PONU", "SCMU", "SUDU", "TORU"}},
	{"CMDU", []string{"AMCU", "ANNU", "APDU", "APHU", "APIU", "APLU", "APRU", "APZU", "CGHU", "CGMU", "CGTU", "CMAU", "CMNU", "CNCU", "DVRU", "ECMU", "MMCU", "NEPU", "NOLU", "NOSU", "NUSU", "OPDU", "OTAU", "SOFU", "STMU"}},
	{"COSU", []string{"CBHU", "CCLU", "CSLU", "CSNU"}},
	{"OOLU", []string{"OOCU", "OOLU"}},
	{"HLCU", []string{"AZLU", "CASU", "CMUU", "CPSU", "CSQU", "CSVU", "FANU", "HAMU", "HLBU", "HLCU", "HLXU", "ITAU", "IVLU", "LBIU", "LNXU", "LYKU", "MOMU", "QIBU", "QNNU", "TLEU", "TMMU", "UACU", "UAEU", "UASU"}},
	{"ONEY", []string{"AKLU", "EKLU", "ESSU", "KKFU", "KKLU", "KKTU", "KLFU", "KLTU", "KXTU", "MOAU", "MOEU", "MOFU", "MOGU", "MOLU", "MORU", "MOSU", "MOTU", "NYKU", "ONEU", "PXCU"}},
	{"EGLV", []string{"EGHU", "EGSU", "EISU", "EITU", "EMCU", "HMCU", "IMTU", "LTIU", "UGMU"}},
	{"HDMU", []string{"HDMU", "HMMU"}},
	{"YMLU", []string{"YMLU", "YMMU"}},
	{"ZIMU", []string{"ZCLU", "ZCSU", "ZIMU", "ZMOU"}},
	{"WHLC", []string{"TPCU", "WHLU", "WHSU"}},
	{"PCIU", []string{"PCIU", "PILU"}},
	{"SITC", []string{"SITU"}},
	{"KMTU", []string{"KMTU"}},
	{"SKLU", []string{"SKHU", "SKLU", "SKRU"}},
	{"TXZJ", []string{"TSSU", "TSTU"}},
	{"ESPU", []string{"ESDU", "ESPU"}},
	{"CHVW", []string{"AWSU"}},
	{"SSBF", []string{"WSLU"}},
	{"SMLM", []string{"SMCU"}},
	{"MATS", []string{"CXCU", "HRZU", "MATU"}},
	{"ARKU", []string{"ARKU"}},
	{"ACLU", []string{"ACLU"}},
	{"CULU", []string{"CULU"}},
	{"CLAM", []string{"CMCU", "SEFU"}},
	{"GOSU", []string{"GMOU", "GSLU", "JXJU", "JXLU"}},
	{"SMLU", []string{"SMLU"}},
	{"TRKU", []string{"TRKU"}},
	{"IILU", []string{"ICUU"}},
	{"SEAU", []string{"SEAU"}},
}

// lessorPrefixes are Source A's prefixes of leasing companies (Triton with TAL, Textainer, CAI,
// Florens, SeaCo with Cronos, SeaCube, Beacon, Touax, Caru, Eurotainer, UES, Blue Sky, Raffles,
// Trident, EXSIF, Flex-Box, One Way Lease, Unitas, Trifleet, Noble, CPI, Waterfront).
var lessorPrefixes = []string{
	"EQRU", "HNSU", "ICSU", "IKSU", "MTRU", "RRIU", "TCKU", "TCLU", "TCNU", "TDRU", "TDTU", "TIIU", "TLLU", "TOLU", "TPHU", "TPXU", "TRDU", "TRHU", "TRIU", "TRLU", "TRVU", "TTNU", "YOIU",
	"AMFU", "AMZU", "AXIU", "CEOU", "CHIU", "CLHU", "GAEU", "GATU", "GAZU", "HCIU", "KWCU", "LLTU", "MAGU", "MAXU", "MGLU", "MLCU", "PRSU", "RFSU", "TEMU", "TENU", "TEXU", "TGBU", "TGHU", "TXGU", "WCIU", "XINU",
	"CAAU", "CAIU", "CAXU", "CAZU", "CESU", "CIPU", "CNEU", "CZZU", "NEVU", "OTEU", "SKYU",
	"DFOU", "DFSU", "FBIU", "FBLU", "FCGU", "FCIU", "FCLU", "FCXU", "FFAU", "FJKU", "FSCU", "FTAU", "JTMU", "PGXU",
	"CLOU", "CRSU", "CRTU", "CRXU", "CUCU", "CXDU", "CXRU", "CXSU", "CXTU", "DNAU", "EMAU", "FVIU", "GCEU", "GESU", "GSTU", "HJMU", "HNPU", "IEAU", "IKKU", "ITLU", "SBOU", "SCEU", "SCPU", "SCXU", "SCZU", "SEGU", "SEKU", "SELU", "SEMU", "SPLU", "UFCU", "XTRU",
	"CRLU", "CTWU", "DRYU", "GAOU", "GIPU", "GSPU", "INBU", "INKU", "INNU", "INTU", "IPXU", "IRNU", "MGNU", "MTSU", "MTYU", "OTPU", "SDDU", "SZLU", "WBPU",
	"BEAU", "BMOU",
	"GLDU", "GRDU", "PGTU", "TGCU", "TGSU",
	"ALNU", "ARDU", "ARTU", "CAEU", "CARU", "CATU", "CLCU", "CORU", "CUBU", "DAMU", "HAKU", "LCRU", "LGEU", "MANU", "MARU", "OFFU", "PSCU", "RTHU", "SCSU", "SLZU", "TRTU", "WEDU", "WSCU",
	"ATIU", "BECU", "CCRU", "ERFU", "ETNU", "EURU", "EUXU", "EVAU", "FWUU", "ICHU", "IXWU", "LOGU", "SECU", "TMLU", "TTTU",
	"GUTU", "GVCU", "GVDU", "UESU", "UETU", "UXXU",
	"BSIU", "SKIU", "FPTU", "RFCU", "RLTU", "TLNU", "EXFU", "EXXU", "ICLU", "TPMU", "TPTU", "USPU",
	"FAMU", "FBXU", "FCBU", "FXLU", "LVNU", "RAVU", "RJCU", "ANYU", "LSEU", "OWLU", "UNIU", "UNXU",
	"INGU", "TCUU", "TIFU", "TMIU", "NLLU", "SAXU", "CDDU", "CPIU", "CPWU", "EASU", "WFHU",
}

// otherOwnerPrefixes are Source A's prefixes of lines outside the registry (Grieg Star, King
// Ocean, CK Line, Samskip, Containerships, DAL, Dongjin, Eimskip, FESCO, Grimaldi, Heung-A,
// Interasia, China Navigation, Mariana Express, Marfret, MISC, Nile Dutch, Namsung, RCL, SCI,
// Samudera, Sinotrans, Unifeeder, WEC, WWL, TOTE, Bahri, Royal Arctic, Tarros, Vasco) and of
// tank and equipment operators (Stolt, Hoyer, Bulkhaul).
var otherOwnerPrefixes = []string{
	"ACXU", "GGOU", "BMLU", "KOSU", "CKLU", "COCU", "SANU", "SWLU", "CSFU", "CZLU", "SMUU", "DAYU",
	"DJLU", "EIMU", "FESU", "GCNU", "HALU", "IAAU", "JSSU", "MCTU", "MERU", "MFRU", "MFTU", "MSHU",
	"NDSU", "NIDU", "NSRU", "NSSU", "REGU", "SIIU", "SIKU", "SNBU", "SNGU", "TLCU", "WECU", "WCXU",
	"WWLU", "NPRU", "NSAU", "RALU", "TARU", "VMLU", "STBU", "SNTU", "HOYU", "BAFU",
}

// billFormats are the bill-of-lading formats of registry lines: Vizion's tables of January 2024
// and June 2026, and its older article for Yang Ming and ZIM. bare marks the lines whose table
// row gives the number without prefix, as it is printed.
var billFormats = []struct {
	scac     string
	prefixes []string
	bodies   []func(*rand.Rand) string
	bare     bool
	source   string
}{
	{"MSCU", []string{"MEDU", "MEDU", "MSCU"}, []func(*rand.Rand) string{body("X2", "D6")}, false, "vizion-2024"},
	{"MAEU", []string{"MAEU", "MRKU"}, []func(*rand.Rand) string{body("D9")}, false, "vizion-2024"},
	{"CMDU", []string{"CMDU"}, []func(*rand.Rand) string{body("L3", "D7")}, true, "vizion-2024"},
	{"APLU", []string{"APLU"}, []func(*rand.Rand) string{body("L3", "D7")}, true, "vizion-2024"},
	{"ANNU", []string{"ANLC", "ANNU"}, []func(*rand.Rand) string{body("L3", "D7")}, true, "vizion-2024"},
	{"COSU", []string{"COSU"}, []func(*rand.Rand) string{body("D10")}, true, "vizion-2024"},
	{"OOLU", []string{"OOLU"}, []func(*rand.Rand) string{body("D10")}, true, "vizion-2026"},
	{"EGLV", []string{"EGLV", "EGLV", "EISU"}, []func(*rand.Rand) string{body("D12")}, true, "vizion-2024"},
	{"SUDU", []string{"SUDU"}, []func(*rand.Rand) string{body("X12")}, true, "vizion-2024"},
	{"HLCU", []string{"HLCU"}, []func(*rand.Rand) string{
		concat(body("L2"), oneOf("A", "B", "H", "S", "1", "2"), body("X9")),
	}, false, "vizion-2024"},
	{"HDMU", []string{"HDMU"}, []func(*rand.Rand) string{body("L4", "D8")}, true, "vizion-2024"},
	{"KMTU", []string{"KMTU"}, []func(*rand.Rand) string{body("L3", "D7"), body("L4", "D6")}, true, "vizion-2024"},
	{"MATS", []string{"MATS"}, []func(*rand.Rand) string{body("D10")}, true, "vizion-2024"},
	{"ONEY", []string{"ONEY"}, []func(*rand.Rand) string{body("L3", "D9"), body("L4", "D8"), body("X6", "D6")}, true, "vizion-2024"},
	{"ARKU", []string{"ARKU"}, []func(*rand.Rand) string{body("L3", "D9")}, true, "vizion-2026"},
	{"SMLM", []string{"SMLM"}, []func(*rand.Rand) string{body("L4", "D8")}, false, "vizion-2024"},
	{"CLAM", []string{"CWLQ"}, []func(*rand.Rand) string{body("L4", "D1", "L1", "D6")}, false, "vizion-2026"},
	{"ACLU", []string{"ACLU"}, []func(*rand.Rand) string{body("SA", "D8"), body("S", "D9")}, true, "vizion-2026"},
	{"YMLU", []string{"YMLU"}, []func(*rand.Rand) string{concat(oneOf("E", "B", "T", "W"), body("D9"))}, false, "vizion-old"},
	{"ZIMU", []string{"ZIMU"}, []func(*rand.Rand) string{body("L3", "D4"), body("L3", "D5"), body("L3", "D6"), body("L3", "D7")}, false, "vizion-old"},
}

// foreignBills are bills of lading of lines outside the registry, with their own prefixes
// (Vizion, June 2026: CK Line, Dongjin, ECU Worldwide).
var foreignBills = []struct {
	prefix string
	body   func(*rand.Rand) string
}{
	{"CKCO", body("L3", "D7")},
	{"DJSC", body("L3", "D9")},
	{"ECUI", body("L6", "D5")},
}

// publishedExamples are numbers printed in the sources, labelled from the same sources.
var publishedExamples = []item{
	{"CSQU3054383", "container", "HLCU", true, "true", "peers-4.1"},
	{"APZU4812090", "container", "CMDU", true, "true", "peers-4.1"},
	{"MWCU6059784", "container", "MAEU", true, "true", "peers-4.1"},
	{"WHLU1234560", "container", "WHLC", true, validity("WHLU1234560"), "t49-oas"},
	{"MSCU1234567", "container", "MSCU", true, validity("MSCU1234567"), "t49-guide"},
	{"MAEU123456789", "bill_of_lading", "MAEU", true, "", "t49-guide"},
	{"EGLV084900042045", "bill_of_lading", "EGLV", true, "", "t49-oas"},
	{"OOLU2148468620", "bill_of_lading", "OOLU", true, "", "t49-fixtures"},
	{"COSU1234567890", "bill_of_lading", "COSU", true, "", "peers-4.3"},
	{"CMDUABC1234567", "bill_of_lading", "CMDU", true, "", "peers-4.3"},
	{"ONEYHAMA71223610", "bill_of_lading", "ONEY", true, "", "vizion-old"},
	{"SMLMNJPE70038700", "bill_of_lading", "SMLM", true, "", "vizion-2024"},
	{"HLCUABC1A2B3C4D5", "bill_of_lading", "HLCU", true, "", "vizion-2024"},
	{"MEDUA1234567", "bill_of_lading", "MSCU", true, "", "vizion-2024"},
	{"MEDUAB123456", "bill_of_lading", "MSCU", true, "", "vizion-2024"},
	{"MSCUAA123456", "bill_of_lading", "MSCU", true, "", "vizion-old"},
	{"CWLQABCD1A123456", "bill_of_lading", "CLAM", true, "", "vizion-2026"},
	{"ACLUSA12345678", "bill_of_lading", "ACLU", true, "", "vizion-2026"},
	{"ACLUS123456789", "bill_of_lading", "ACLU", true, "", "vizion-2026"},
	{"YMLUE123456789", "bill_of_lading", "YMLU", true, "", "vizion-old"},
	{"ZIMUABC1234567", "bill_of_lading", "ZIMU", true, "", "vizion-old"},
	{"APLU012345678", "bill_of_lading", "APLU", true, "", "vizion-old"},
	{"SUDU12345AAAAAAA", "bill_of_lading", "SUDU", true, "", "vizion-old"},
	{"CCLU1234567890", "bill_of_lading", "COSU", true, "", "vizion-old"},
	{"CAT123456", "bill_of_lading", "CLAM", false, "", "vizion-2026"},
	{"SA12345678", "bill_of_lading", "ACLU", false, "", "vizion-2026"},
	{"S123456789", "bill_of_lading", "ACLU", false, "", "vizion-2026"},
	{"CKCOABC1234567", "bill_of_lading", unknown, false, "", "vizion-2026"},
	{"DJSCABC123456789", "bill_of_lading", unknown, false, "", "vizion-2026"},
	{"987654321", "booking", unknown, false, "", "t49-guide"},
	{"ABC709951", "booking", unknown, false, "", "peers-4.4"},
	{"VAS000001", "booking", "MAEU", false, "", "peers-4.4"},
	{"BICU 123456 5", "container", unknown, false, validity("BICU1234565"), "bic"},
}

// trackedExamples are numbers of shipments Terminal49 shows tracked in its published examples,
// labelled with the line the shipment names (SOURCES.md, "Published rows"). A container is
// knowable when Source A gives its owner code to a line of the registry, whichever line carried
// it; a bill is knowable when it is printed with a prefix.
var trackedExamples = []item{
	{"MEDUFR030802", "bill_of_lading", "MSCU", true, "", "t49-oas-tracked"},
	{"212157148", "bill_of_lading", "MAEU", false, "", "t49-oas-tracked"},
	{"HDMUTAOM72244900", "bill_of_lading", "HDMU", true, "", "t49-oas-tracked"},
	{"OOLU2738424980", "bill_of_lading", "OOLU", true, "", "t49-oas-tracked"},
	{"OOLU2738277190", "bill_of_lading", "OOLU", true, "", "t49-oas-tracked"},
	{"OOLU2147973020", "bill_of_lading", "OOLU", true, "", "t49-oas-tracked"},
	{"MEDUF5399896", "bill_of_lading", "MSCU", true, "", "t49-oas-tracked"},
	{"CAIU7432986", "container", "MSCU", false, validity("CAIU7432986"), "t49-oas-tracked"},
	{"MAEU221876618", "bill_of_lading", "MAEU", true, "", "t49-webhooks"},
	{"MRKU3700927", "container", "MAEU", true, validity("MRKU3700927"), "t49-webhooks"},
	{"CMDUAMC1863476", "bill_of_lading", "CMDU", true, "", "t49-webhooks"},
	{"SA00846884", "bill_of_lading", "ACLU", false, "", "t49-webhooks"},
	{"GCNU8802957", "container", "ACLU", false, validity("GCNU8802957"), "t49-webhooks"},
	{"CMDUSHZ5223740", "bill_of_lading", "CMDU", true, "", "t49-webhooks"},
	{"TGSU5023798", "container", "CMDU", false, validity("TGSU5023798"), "t49-webhooks"},
	{"HDMUNBOZ32457200", "bill_of_lading", "HDMU", true, "", "t49-webhooks"},
	{"KOCU4221161", "container", "HDMU", false, validity("KOCU4221161"), "t49-webhooks"},
	{"914595688", "bill_of_lading", "SEAU", false, "", "t49-webhooks"},
	{"MNBU4188482", "container", "SEAU", true, validity("MNBU4188482"), "t49-webhooks"},
	{"6345849250", "bill_of_lading", "COSU", false, "", "t49-webhooks"},
	{"OOLU1927772", "container", "COSU", true, validity("OOLU1927772"), "t49-webhooks"},
	{"ZIMULEH9024455", "bill_of_lading", "ZIMU", true, "", "t49-webhooks"},
	{"CAIU3758064", "container", "ZIMU", false, validity("CAIU3758064"), "t49-webhooks"},
	{"HDMUXMNM78424800", "bill_of_lading", "HDMU", true, "", "t49-webhooks"},
	{"GAOU6337366", "container", "HDMU", false, validity("GAOU6337366"), "t49-webhooks"},
	{"TA2PTC560500", "bill_of_lading", "ONEY", false, "", "t49-webhooks"},
	{"NYKU0800893", "container", "ONEY", true, validity("NYKU0800893"), "t49-webhooks"},
	{"MAEUGAP001939", "bill_of_lading", "MAEU", true, "", "t49-webhooks"},
	{"MSKU8532556", "container", "MAEU", true, validity("MSKU8532556"), "t49-webhooks"},
	{"LQ692823", "bill_of_lading", "MSCU", false, "", "t49-webhooks"},
	{"FSCU8883322", "container", "MSCU", false, validity("FSCU8883322"), "t49-webhooks"},
	{"6344045750", "bill_of_lading", "COSU", false, "", "t49-webhooks"},
	{"FFAU3144344", "container", "COSU", false, validity("FFAU3144344"), "t49-webhooks"},
	{"2706772870", "bill_of_lading", "OOLU", false, "", "t49-webhooks"},
	{"OOCU7853330", "container", "OOLU", true, validity("OOCU7853330"), "t49-webhooks"},
	{"OOLU2706578920", "bill_of_lading", "OOLU", true, "", "t49-webhooks"},
	{"OOLU6213464", "container", "OOLU", true, validity("OOLU6213464"), "t49-webhooks"},
	{"OOLU2136060630", "bill_of_lading", "OOLU", true, "", "t49-webhooks"},
	{"MAEUJAK015053", "bill_of_lading", "MAEU", true, "", "t49-webhooks"},
	{"MSKU4807969", "container", "MAEU", true, validity("MSKU4807969"), "t49-webhooks"},
}
